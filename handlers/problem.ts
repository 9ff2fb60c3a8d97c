import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { ERROR_CODES, InstallerError, codeToStatus, type ErrorCode } from "../core/common/errors.ts";
import { presentedCode } from "../core/access/install-code.ts";
import { printableJson } from "../core/common/printable.ts";
import type { AppEnv } from "./env.ts";

const HTTP_STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: "INVALID_REQUEST",
  401: "UNAUTHORIZED",
  404: "NOT_FOUND",
  413: "BODY_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

const HTTP_DETAILS: Partial<Record<ErrorCode, string>> = {
  BODY_TOO_LARGE: "The body is over the 1 MiB limit.",
  UNSUPPORTED_MEDIA_TYPE: "This endpoint does not take that content type; see /openapi.json for the accepted ones.",
  NOT_FOUND: "No such endpoint. The API is under /v1/installer; /openapi.json lists every route.",
};

function problemType(code: ErrorCode): string {
  return `urn:stratum:installer:problem:${code.toLowerCase().replaceAll("_", "-")}`;
}

const REALM = "stratum-installer";

/**
 * RFC 6750 §3: the scheme a 401 asks for; `invalid_token` only when a code was sent, since a
 * request without one is not told an error code.
 */
function bearerChallenge(c: Context<AppEnv>): string {
  const sent = presentedCode(c.env?.incoming?.headers.authorization ?? c.req.header("authorization")) !== undefined;
  return sent ? `Bearer realm="${REALM}", error="invalid_token", error_description="The install code is wrong"` : `Bearer realm="${REALM}"`;
}

/**
 * The problem+json answer of `error`, as printable JSON (core/common/printable.ts): a path, a key or a value it names
 * holding a bidi override, a C1 control or U+2028 is written out (\u202e), never obeyed or reordered by a terminal.
 */
export function problem(c: Context<AppEnv>, error: InstallerError): Response {
  const status = codeToStatus(error.code);
  const headers: Record<string, string> = { "Content-Type": "application/problem+json" };
  if (error.retryAfterSeconds !== undefined) headers["Retry-After"] = String(error.retryAfterSeconds);
  if (status === 401) headers["WWW-Authenticate"] = bearerChallenge(c);
  // The rest of a refused body is never read: the connection cannot carry another request (cli/linger.ts reads it off).
  if (status === 413) headers.Connection = "close";
  const body = {
    type: problemType(error.code),
    title: ERROR_CODES[error.code].title,
    status,
    detail: error.detail,
    code: error.code,
    requestId: c.get("requestId") ?? "",
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error.blockers ? { blockers: error.blockers } : {}),
  };
  return c.body(printableJson(body), status as 400, headers);
}

/** Anything thrown: domain errors keep their code, Hono's HTTP errors map by status, the rest is a 500 without internals. */
export function toInstallerError(err: unknown): InstallerError | undefined {
  if (err instanceof InstallerError) return err;
  if (err instanceof HTTPException) {
    const code = HTTP_STATUS_CODES[err.status];
    if (code) return new InstallerError({ code, detail: HTTP_DETAILS[code] ?? err.message });
  }
  return undefined;
}

export function invalidRequestFromZod(error: ZodError, target: string): InstallerError {
  return new InstallerError({
    code: "INVALID_REQUEST",
    detail: `The request ${target} is not the expected shape: ${error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    errors: error.issues.map((issue) => ({ field: issue.path.map(String).join("."), message: issue.message })),
  });
}

/** A problem for a request the app never saw: a fresh request id and the security headers every answer has; the connection closes. */
function unrouted(status: 400 | 431 | 500, detail: string): { body: string; headers: Record<string, string> } {
  const requestId = randomUUID();
  const code = status === 500 ? "INTERNAL" : "INVALID_REQUEST";
  const body = printableJson({ type: problemType(code), title: ERROR_CODES[code].title, status, detail, code, requestId });
  const headers = {
    "Content-Type": "application/problem+json",
    "Content-Length": String(Buffer.byteLength(body)),
    "X-Request-Id": requestId,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "SAMEORIGIN",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    Connection: "close",
  };
  return { body, headers };
}

/**
 * For requests Node's HTTP parser refuses before Hono sees them (headers over 16 KB, a
 * malformed request line): the same problem+json shape, written to the socket.
 */
export function rawProblem(status: 400 | 431, detail: string): string {
  const { body, headers } = unrouted(status, detail);
  const head = `HTTP/1.1 ${status} ${status === 431 ? "Request Header Fields Too Large" : "Bad Request"}`;
  return [head, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), "", body].join("\r\n");
}

/**
 * For what @hono/node-server answers itself: a request Node parsed that names no URL (target `*`, no or a broken
 * Host) is a 400, and an app that could not answer at all a 500; as problem+json, not an empty body.
 */
export function unroutedProblem(status: 400 | 500, detail: string): Response {
  const { body, headers } = unrouted(status, detail);
  return new Response(body, { status, headers });
}
