/** The join check's vocabulary (SPEC §6): its checks in the order they run, their failure codes, and what a failure asks of the operator. */

export const JOIN_CODES = [
  "JOIN_UNREACHABLE",
  "JOIN_FINGERPRINT_MISMATCH",
  "JOIN_CLUSTER_MISMATCH",
  "JOIN_RELEASE_MISMATCH",
  "JOIN_CLOCK_SKEW",
  "JOIN_TOKEN_REFUSED",
] as const;
export type JoinCode = (typeof JOIN_CODES)[number];

export const JOIN_CHECK_NAMES = ["reachable", "fingerprint", "join-info", "cluster", "release", "clock", "token"] as const;
export type JoinCheckName = (typeof JOIN_CHECK_NAMES)[number];

/**
 * A check that ran and failed carries its code; one that could not run (an earlier failure left it nothing to ask)
 * is `ok: false` with no code, its detail saying why it was not checked.
 */
export interface JoinCheck {
  name: JoinCheckName;
  ok: boolean;
  code?: JoinCode;
  detail: string;
}

export interface JoinCheckResult {
  ok: boolean;
  checks: JoinCheck[];
}

export type JoinNext = "fixConfig" | "retryInstall";

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
