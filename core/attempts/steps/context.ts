import { monotonic, type Clock } from "../../common/clock.ts";
import type { Redactor } from "../../secrets/index.ts";
import type { NewEvent } from "../events.ts";
import type { StoppedGroup } from "../../process/group.ts";

export interface StepContext {
  emit(event: Omit<NewEvent, "step">): void;
  /** Resolves once the event log has caught up, for producers that can pause (firstboot's pipes). */
  backlogged(): Promise<void> | undefined;
  redactor: Redactor;
  /** The wall clock: what events and records say. */
  now: () => Date;
  /**
   * Milliseconds from any origin, never stepped (performance.now() unless a test gives its own): what a wait is
   * measured by. A fresh node's wall clock jumps at its first time sync, often by years (a dead RTC battery).
   */
  monotonic?: Clock;
  /** Aborted when the service stops: a step ends at once and the attempt stays interrupted. */
  signal: AbortSignal;
  /**
   * Records the step's success now, on disk, before the step is over: for a step whose work is done but which still
   * tidies up (firstboot exited 0; what it left running is being stopped), so that a stop or a kill then is taken
   * for what it is, an interruption after the step, never a reason to run it again.
   */
  succeeded(): Promise<void>;
  /** Hears what stopping firstboot's group took, as the step stops it. */
  groupStopped?(stopped: StoppedGroup): void;
}

/** The step's monotonic clock (StepContext.monotonic). */
export const monotonicOf = (ctx: Pick<StepContext, "monotonic">): Clock => ctx.monotonic ?? monotonic;
