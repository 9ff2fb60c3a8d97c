import type { Redactor } from "../../secrets/index.ts";
import type { NewEvent } from "../events.ts";

export interface StepContext {
  emit(event: Omit<NewEvent, "step">): void;
  /** Resolves once the event log has caught up, for producers that can pause (firstboot's pipes). */
  backlogged(): Promise<void> | undefined;
  redactor: Redactor;
  now: () => Date;
  /** Aborted when the service stops: a step ends at once and the attempt stays interrupted. */
  signal: AbortSignal;
}
