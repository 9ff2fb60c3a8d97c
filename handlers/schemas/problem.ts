import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../../core/common/errors.ts";
import { CodeSchema } from "./common.ts";

export const FieldErrorSchema = z
  .object({
    field: z.string().meta({
      description:
        "The structured field (network.floatingIpCidrs[1]); empty for the whole config. For a raw YAML draft, the node.yaml key.",
    }),
    message: z.string(),
    hint: z.string().optional().meta({ description: "How to fix it, e.g. the nearest known key for a typo." }),
    line: z.number().int().optional().meta({ description: "1-based line in a raw YAML draft." }),
    column: z.number().int().optional().meta({ description: "1-based column in a raw YAML draft." }),
  })
  .meta({ id: "FieldError" });

export const BlockerSchema = z
  .object({
    code: z.string().meta({ description: "Stable identifier, e.g. PAYLOAD_NOT_LOADED." }),
    detail: z.string().meta({ description: "What is wrong and how to fix it, for a person." }),
    progress: z
      .object({
        doneBytes: z.number().int().min(0).meta({ description: "Bytes of the payload's images checked so far." }),
        totalBytes: z.number().int().min(0).meta({ description: "Bytes to check in all; 0 when the release lists no images." }),
      })
      .optional()
      .meta({
        description:
          "PAYLOAD_VERIFYING only, while the checksums are being read (absent while the payload is still changing and its check has not begun): how far the check is, for a progress bar.",
      }),
  })
  .meta({ id: "Blocker" });

const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    code: CodeSchema.meta({ examples: Object.keys(ERROR_CODES) }),
    requestId: z.string(),
    errors: z.array(FieldErrorSchema).optional().meta({ description: "Field errors, for INVALID_CONFIG." }),
    blockers: z.array(BlockerSchema).optional().meta({ description: "Why the install is refused, for INSTALL_BLOCKED." }),
  })
  .meta({ id: "Problem", description: "RFC 7807 problem details, the control plane's shape." });

/** The 400 any request can get: one Node's HTTP parser or the server refuses before it is routed (cli/serve.ts). */
const NOT_HTTP = "the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed";

const PROBLEM_DESCRIPTIONS = {
  400: `The body does not parse or is not the expected shape; or ${NOT_HTTP}.`,
  401: "No install code, or the wrong one.",
  404: "Unknown path or attempt.",
  409: "The request conflicts with the install's state.",
  412: "If-Match does not match the draft's ETag.",
  413: "Body over the limit.",
  415: "Content type not accepted, or the body has a Content-Encoding (it is taken as it is, never compressed).",
  422: "The draft does not validate.",
  429: "Too many wrong install codes; wait for Retry-After.",
  431: "The request headers are over 16 KB; refused before the request is routed.",
  500: "The installer failed to answer.",
  507: "The state dir cannot be written (a full disk or quota, a read-only file system, permissions, a file or folder in the way, an I/O error, too many open files, the state dir gone): nothing was changed; the detail says why and what to do before a retry.",
} as const;

type ProblemStatus = keyof typeof PROBLEM_DESCRIPTIONS;

const retryAfterHeader = z.number().int().meta({ description: "Seconds until the next attempt is considered." });
const challengeHeader = z.string().meta({
  description: 'The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong.',
});

const PROBLEM_HEADERS: Partial<Record<ProblemStatus, z.ZodObject>> = {
  401: z.object({ "WWW-Authenticate": challengeHeader }),
  429: z.object({ "Retry-After": retryAfterHeader }),
};

/** One problem response; `description` when a route says more precisely when it answers so. */
export function problemResponse(status: ProblemStatus, description: string = PROBLEM_DESCRIPTIONS[status]) {
  return {
    description,
    content: { "application/problem+json": { schema: ProblemSchema } },
    ...(PROBLEM_HEADERS[status] ? { headers: PROBLEM_HEADERS[status] } : {}),
  };
}

/** The problem responses a route really returns; every route spreads these. */
export function problemResponses<const S extends ProblemStatus>(...statuses: S[]): Record<S, ReturnType<typeof problemResponse>> {
  return Object.fromEntries(statuses.map((s) => [s, problemResponse(s)])) as Record<S, ReturnType<typeof problemResponse>>;
}

/** A 400 for `what` a route refuses itself (its query, a header), besides a request that is not valid HTTP. */
export function invalidRequestResponse(what: string) {
  return problemResponse(400, `${what}; or ${NOT_HTTP}.`);
}

/** What Node's HTTP parser or the server refuses before routing (cli/serve.ts), on every route: a route that refuses more says so after it. */
const unroutedProblems = {
  400: problemResponse(400, `${NOT_HTTP[0]!.toUpperCase()}${NOT_HTTP.slice(1)}.`),
  ...problemResponses(431),
};

/** Every /v1/installer route: the code check, its lockout, what is refused before routing, and a failure to answer. */
export const authProblems = { ...unroutedProblems, ...problemResponses(401, 429, 500) };

/** Every route without the install code: what is refused before routing, and a failure to answer. */
export const publicProblems = { ...unroutedProblems, ...problemResponses(500) };
