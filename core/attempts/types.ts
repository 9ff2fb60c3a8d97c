import type { AttemptKind, NextAction, Step } from "../model.ts";
import type { GroupRecord } from "../process-group.ts";

export const ATTEMPT_STATES = ["running", "succeeded", "failed"] as const;
export type AttemptState = (typeof ATTEMPT_STATES)[number];

export const FAILURE_CODES = [
  "PREFLIGHT_FAILED",
  "INSTALL_BLOCKED",
  "WRITE_FAILED",
  "FIRSTBOOT_FAILED",
  "READINESS_TIMEOUT",
  "INTERRUPTED",
  "STATE_WRITE_FAILED",
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export interface StepRecord {
  step: Step;
  state: AttemptState;
  startedAt: string;
  finishedAt?: string;
  message?: string;
}

export interface Verdict {
  attempt: number;
  kind: AttemptKind;
  outcome: "succeeded" | "failed";
  step: Step | null;
  code: FailureCode | null;
  message: string;
  next: NextAction;
}

export interface ReadinessCheck {
  name: string;
  status: string;
  detail?: string;
}

export interface ReadinessObservation {
  time: string;
  state: string;
  detail?: string;
  checks?: ReadinessCheck[];
}

export interface AttemptRecord {
  attempt: number;
  kind: AttemptKind;
  startedBy: "person" | "unattended";
  state: AttemptState;
  step: Step | null;
  startedAt: string;
  finishedAt?: string;
  steps: StepRecord[];
  verdict?: Verdict;
  /** The draft as it was installed, secrets redacted. */
  config: { source: "structured" | "yaml"; config?: unknown; yaml?: string };
  payloadVersion: string | null;
  nodeYamlPath?: string;
  firstbootTail: string[];
  /** The firstboot process group while it may be alive: a start after a crash stops what is left of it. */
  firstbootGroup?: GroupRecord;
  /** Every change of the cloud's readiness state or checks, oldest first. */
  readinessHistory: ReadinessObservation[];
}
