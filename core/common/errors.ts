import type { FieldError } from "../state/records.ts";

export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, title: "Invalid request" },
  UNAUTHORIZED: { status: 401, title: "Unauthorized" },
  NOT_FOUND: { status: 404, title: "Not found" },
  INSTALL_RUNNING: { status: 409, title: "An install attempt is running" },
  ALREADY_INSTALLED: { status: 409, title: "Already installed" },
  INSTALL_BLOCKED: { status: 409, title: "Install blocked" },
  RECHECK_NOT_APPLICABLE: { status: 409, title: "Recheck not applicable" },
  NOT_INSTALLED: { status: 409, title: "Not installed yet" },
  PRECONDITION_FAILED: { status: 412, title: "Precondition failed" },
  BODY_TOO_LARGE: { status: 413, title: "Body too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  INVALID_CONFIG: { status: 422, title: "Invalid config" },
  TOO_MANY_ATTEMPTS: { status: 429, title: "Too many attempts" },
  INTERNAL: { status: 500, title: "Internal error" },
  INSUFFICIENT_STORAGE: { status: 507, title: "Insufficient storage" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface Blocker {
  code: string;
  detail: string;
  /** PAYLOAD_VERIFYING while checksums are read, so a front end can draw a bar. */
  progress?: { doneBytes: number; totalBytes: number };
}

interface InstallerErrorInit {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  blockers?: Blocker[];
  retryAfterSeconds?: number;
}

/** The one domain error: handlers and middleware turn it into problem+json in one place. */
/**
 * A refusal that no retry or restart changes: the operator must act first (the service exits 2, which its unit does
 * not restart).
 */
export class NeedsOperator extends Error {
  override name = "NeedsOperator";
}

export class InstallerError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly blockers?: Blocker[];
  readonly retryAfterSeconds?: number;

  constructor(init: InstallerErrorInit) {
    super(`${init.code}: ${init.detail}`);
    this.name = "InstallerError";
    this.code = init.code;
    this.detail = init.detail;
    this.errors = init.errors;
    this.blockers = init.blockers;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

export function codeToStatus(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
