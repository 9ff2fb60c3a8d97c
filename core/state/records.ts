/**
 * Every record the store persists, in one leaf module: the store and the services that own
 * these records import their shapes from here, never from each other. It imports nothing: the
 * tuples and shapes a record's fields take live here too.
 */

export const STEPS = ["preflight", "write-config", "firstboot", "readiness"] as const;
export type Step = (typeof STEPS)[number];

export const ATTEMPT_KINDS = ["install", "recheck-readiness"] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];

export const NEXT_ACTIONS = ["none", "recheckReadiness", "fixConfig", "retryInstall", "clearBlockers"] as const;
export type NextAction = (typeof NEXT_ACTIONS)[number];

/** A draft field that does not validate, where it is (line and column in a node.yaml draft) and how to fix it. */
export interface FieldError {
  field: string;
  message: string;
  hint?: string;
  line?: number;
  column?: number;
}

/** A process group as the store records it: its leader's pid (= pgid) and start time, so a reused pid is never taken for it. */
export interface GroupRecord {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where there is no /proc. */
  startTime: number | null;
}

export const JOIN_CODES = [
  "JOIN_UNREACHABLE",
  "JOIN_FINGERPRINT_MISMATCH",
  "JOIN_CLUSTER_MISMATCH",
  "JOIN_RELEASE_MISMATCH",
  "JOIN_CLOCK_SKEW",
  "JOIN_TOKEN_REFUSED",
] as const;
export type JoinCode = (typeof JOIN_CODES)[number];

/** The join check's checks (SPEC §6), in the order they run. */
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

export type DraftRecord =
  | { source: "structured"; config: Record<string, unknown>; revision: number; updatedAt: string | null }
  | { source: "yaml"; yaml: string; revision: number; updatedAt: string | null };

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
  /** The readiness wait's end: the step fails with READINESS_TIMEOUT when the cloud is not READY by then. */
  deadline?: string;
}

export interface Verdict {
  attempt: number;
  kind: AttemptKind;
  outcome: "succeeded" | "failed";
  step: Step | null;
  code: FailureCode | null;
  message: string;
  next: NextAction;
  /** A join check that failed preflight: every check, each failure with its code (SPEC §6). */
  checks?: JoinCheck[];
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

/** How to reach what an install attempt installed, from off the node. */
export interface Endpoints {
  /** The cloud's API: a join node's cluster at its join address; otherwise the readiness endpoint's scheme and port at the VIP, or at the node's address. */
  cloudApi?: string;
  /** The node's management address, for SSH. */
  ssh?: string;
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
  /** The draft as it was installed, secrets redacted (a recheck's: that of the install it rechecks). */
  config: { source: "structured" | "yaml"; config?: unknown; yaml?: string };
  payloadVersion: string | null;
  nodeYamlPath?: string;
  firstbootTail: string[];
  /** The firstboot process group while it may be alive: a start after a crash stops what is left of it. */
  firstbootGroup?: GroupRecord;
  /** Every change of the cloud's readiness state or checks, oldest first. */
  readinessHistory: ReadinessObservation[];
  /** The join check a hyperconverged-join preflight ran, every check in order. */
  joinCheck?: JoinCheck[];
  /** How to reach what it installed (a recheck's: those of the install it rechecks). */
  endpoints?: Endpoints;
  /** SHA-256 (hex) of the cloud API's certificate, as the readiness poll that saw READY met it over https. */
  cloudCertSha256?: string;
}

export const UNATTENDED_STATES = ["started", "invalid", "blocked"] as const;
type UnattendedState = (typeof UNATTENDED_STATES)[number];

/** What became of the node.yaml stage 1 left for an unattended install (seed 000 `unattended`). */
export interface UnattendedRecord {
  state: UnattendedState;
  origin: string;
  takenAt: string;
  attempt?: number;
  errors?: FieldError[];
  autoStart?: boolean;
}

/** Set once the handoff node.yaml was looked for (first start): the hash of the file taken, or null. */
export interface HandoffRecord {
  sha256: string | null;
}

export interface AddressRecord {
  failures: number;
  lastFailureAt: number;
  lockedUntil?: number;
}

export interface LockoutState {
  addresses: Record<string, AddressRecord>;
  /** Times (epoch ms) of wrong codes from all addresses, within the global window. */
  globalFailures: number[];
}

/** The cluster an ha-init node founds: the secret written to node.yaml when the draft brought none, kept for every retry. */
export interface ClusterRecord {
  secret: string;
}

/** The one store document. */
export interface StoreData {
  schemaVersion: 1;
  draft: DraftRecord;
  attempts: AttemptRecord[];
  lockout: LockoutState;
  unattended?: UnattendedRecord;
  handoff?: HandoffRecord;
  cluster?: ClusterRecord;
}

/**
 * last-start.json, written by each start of `serve`: its notices, and what it ran with that a command run without
 * the service needs (`support-bundle` reads the payload folder and host facts the service was started with,
 * `status` the port it listens on).
 */
export interface LastStart {
  startedAt: string;
  pid: number;
  version: string;
  notices: string[];
  /** The payload folder, absolute. */
  payload?: string;
  /** The host facts file, absolute, when one was given (--host-facts). */
  hostFacts?: string;
  /** The operator's private key file, absolute, when one was given (--tls-key): the support bundle redacts it. */
  tlsKey?: string;
  /** The address it listens on (--listen's host) and the port it got. */
  listenHost?: string;
  port?: number;
}
