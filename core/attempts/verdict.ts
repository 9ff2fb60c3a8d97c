import type { FailureCode, JoinCheck, NextAction, Step } from "../state/records.ts";

/** A step's failure, as the runner records it: the code says what `next` is. */
export class StepFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    /** When the code alone does not say it (a preflight failure that is the node's, not the config's). */
    readonly next?: NextAction,
    /** The join check's checks, when it is what failed. */
    readonly checks?: JoinCheck[],
  ) {
    super(message);
    this.name = "StepFailure";
  }
}

/** SPEC §6: what the operator does next after a failure. */
export function nextAction(code: FailureCode, step: Step | null): NextAction {
  switch (code) {
    case "READINESS_TIMEOUT":
      return "recheckReadiness";
    case "INTERRUPTED":
      return step === "readiness" ? "recheckReadiness" : "retryInstall";
    case "INSTALL_BLOCKED":
      return "clearBlockers";
    case "PREFLIGHT_FAILED":
      return "fixConfig";
    case "WRITE_FAILED":
    case "FIRSTBOOT_FAILED":
    case "STATE_WRITE_FAILED":
      return "retryInstall";
  }
}

const FAILURE_OF: Partial<Record<Step, FailureCode>> = { "write-config": "WRITE_FAILED", firstboot: "FIRSTBOOT_FAILED", readiness: "READINESS_TIMEOUT" };

/** The failure code of an error no step named: the step it happened in says what failed. */
export function failureCodeOf(step: Step | null): FailureCode {
  return (step && FAILURE_OF[step]) ?? "PREFLIGHT_FAILED";
}
