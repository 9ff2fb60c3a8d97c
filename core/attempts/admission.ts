import { InstallerError, type Blocker } from "../common/errors.ts";
import type { Phase } from "../common/model.ts";
import type { AttemptRecord, FieldError } from "../state/records.ts";

/** Seed 000: configuring until an install starts; installing while one runs; done after one succeeded; failed after the latest failed. */
export function phaseOf(attempts: readonly AttemptRecord[]): Phase {
  const latest = attempts.at(-1);
  if (!latest) return "configuring";
  if (latest.state === "running") return "installing";
  if (attempts.some((a) => a.state === "succeeded")) return "done";
  return "failed";
}

export type AdmissionRequest =
  | { action: "change-draft"; attempts: readonly AttemptRecord[] }
  /** `blockers`: what refuses any attempt, a recheck too (the installer stopping); the payload's do not refuse a recheck. */
  | { action: "recheck-readiness"; attempts: readonly AttemptRecord[]; blockers?: Blocker[] }
  | { action: "install"; attempts: readonly AttemptRecord[]; draft: { valid: boolean; errors: FieldError[] }; blockers: Blocker[] };

/** The installer is stopping: an attempt admitted now would be cut at the exit, its firstboot left unsupervised. */
export const stoppingBlocker = (then: string): Blocker => ({ code: "INSTALLER_STOPPING", detail: `The installer is stopping (a restart, or a stop): ${then} once it answers again.` });

const WHAT: Record<AdmissionRequest["action"], string> = {
  "change-draft": "changing the draft",
  install: "another install",
  "recheck-readiness": "a readiness recheck",
};

/**
 * May it happen now: undefined when it may, else the refusal to throw. While an attempt runs the
 * draft stays as it validated it; once installed, the draft is history and nothing starts.
 */
export function refusal(request: AdmissionRequest): InstallerError | undefined {
  const { attempts } = request;
  const phase = phaseOf(attempts);
  const what = WHAT[request.action];
  if (phase === "installing") {
    return new InstallerError({ code: "INSTALL_RUNNING", detail: `Attempt ${attempts.length} is running, so ${what} must wait until it ends; follow it at /v1/installer/install/events.` });
  }
  if (phase === "done" && request.action === "recheck-readiness") {
    // The endpoint's own page names RECHECK_NOT_APPLICABLE for every last attempt that did not fail at readiness.
    const succeeded = [...attempts].reverse().find((a) => a.state === "succeeded")!;
    return new InstallerError({
      code: "RECHECK_NOT_APPLICABLE",
      detail: `Attempt ${succeeded.attempt} succeeded: this node is installed and its cloud reported READY, so there is no readiness to recheck.`,
    });
  }
  if (phase === "done") {
    return new InstallerError({ code: "ALREADY_INSTALLED", detail: `An install attempt succeeded: this node is installed, so ${what} has no effect any more.` });
  }
  if (request.action === "recheck-readiness") {
    const last = attempts.at(-1);
    if (last?.verdict?.step === "readiness") {
      const blockers = request.blockers ?? [];
      return blockers.length === 0 ? undefined : new InstallerError({ code: "INSTALL_BLOCKED", detail: "Blockers refuse the readiness recheck; each says how to clear it.", blockers });
    }
    return new InstallerError({
      code: "RECHECK_NOT_APPLICABLE",
      detail: last
        ? `The last attempt (${last.attempt}) failed at ${last.verdict?.step ?? "its start"}, not at readiness; its verdict says ${last.verdict?.next ?? "retryInstall"}.`
        : "No install attempt has run yet; start one with POST /v1/installer/install.",
    });
  }
  if (request.action === "install") {
    if (!request.draft.valid) {
      return new InstallerError({ code: "INVALID_CONFIG", detail: "The draft does not validate; fix the fields listed in `errors`, then install.", errors: request.draft.errors });
    }
    if (request.blockers.length > 0) {
      return new InstallerError({ code: "INSTALL_BLOCKED", detail: "Blockers refuse the install; each says how to clear it.", blockers: request.blockers });
    }
  }
  return undefined;
}
