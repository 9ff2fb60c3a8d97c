import type { FieldError } from "./config/index.ts";

export const UNATTENDED_STATES = ["started", "invalid", "blocked"] as const;
export type UnattendedState = (typeof UNATTENDED_STATES)[number];

/** What became of the node.yaml stage 1 left for an unattended install (seed 000 `unattended`). */
export interface UnattendedRecord {
  state: UnattendedState;
  origin: string;
  takenAt: string;
  attempt?: number;
  errors?: FieldError[];
  autoStart?: boolean;
}
