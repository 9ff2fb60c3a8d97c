/** What a failed join check asks of the operator (SPEC §6); its checks and codes are records (state/records.ts). */
import type { JoinCheck, JoinCode } from "../state/records.ts";

export interface JoinCheckResult {
  ok: boolean;
  checks: JoinCheck[];
}

type JoinNext = "fixConfig" | "retryInstall";

/** A token, fingerprint or cluster problem is the draft's to fix; the others pass once the cluster or this node changes. */
export const JOIN_CODE_NEXT: Record<JoinCode, JoinNext> = {
  JOIN_UNREACHABLE: "retryInstall",
  JOIN_FINGERPRINT_MISMATCH: "fixConfig",
  JOIN_CLUSTER_MISMATCH: "fixConfig",
  JOIN_RELEASE_MISMATCH: "retryInstall",
  JOIN_CLOCK_SKEW: "retryInstall",
  JOIN_TOKEN_REFUSED: "fixConfig",
};

/** The verdict's `next` for a failed join check: the draft must change first if any failure is the draft's. */
export function joinCheckNext(checks: readonly JoinCheck[]): JoinNext {
  return checks.some((check) => check.code && JOIN_CODE_NEXT[check.code] === "fixConfig") ? "fixConfig" : "retryInstall";
}
