/**
 * The join check of SPEC §6: before a joining node writes anything, it verifies the cluster it is about to join.
 * The token never leaves the node: its fingerprint pins the TLS certificate before any request is written,
 * and its secret is proven with an HMAC over a fresh nonce (see join-proof.ts).
 */
import { type Answer, HttpClientError, request } from "../http/client.ts";
import { authority, parseJoinAddress } from "./endpoint.ts";
import type { JoinCheckResult } from "./join-codes.ts";
import { judgeJoinInfo, parseJoinInfo } from "./join-info.ts";
import { joinProof, newNonce } from "./join-proof.ts";
import { type JoinToken, TOKEN_HINT, parseJoinToken } from "./join-token.ts";
import { JOIN_CHECK_NAMES, type JoinCheck, type JoinCheckName } from "../state/records.ts";

export interface JoinCheckInput {
  joinAddress: string;
  token: string;
  clusterName?: string;
  /** This node's payload release; undefined when no payload is loaded. */
  release: string | undefined;
  now: () => Date;
  signal?: AbortSignal;
  /** The bound on the TLS connection and on each request; default 5 s (SPEC §6). */
  timeoutMs?: number;
}

const JOIN_TIMEOUT_MS = 5_000;

type Found = Partial<Record<JoinCheckName, JoinCheck>>;

const failed = (name: JoinCheckName, code: JoinCheck["code"], detail: string): JoinCheck => ({ name, ok: false, code, detail });

/** Every check in order; one the run did not reach is reported as not checked, with why. */
function result(found: Found, notCheckedBecause: string): JoinCheckResult {
  const checks = JOIN_CHECK_NAMES.map((name) => found[name] ?? { name, ok: false, detail: `not checked: ${notCheckedBecause}` });
  return { ok: checks.every((check) => check.ok), checks };
}

/** Reports every failure at once; rejects only when `signal` aborts. */
export async function runJoinCheck(input: JoinCheckInput): Promise<JoinCheckResult> {
  const token = parseJoinToken(input.token);
  if (!token.ok) return result({ token: failed("token", "JOIN_TOKEN_REFUSED", `the draft's join token is ${token.problem}; ${TOKEN_HINT}`) }, "the join token is malformed");

  const endpoint = parseJoinAddress(input.joinAddress);
  const where = authority(endpoint);
  const ask = (method: "GET" | "POST", path: string, body?: string) =>
    request({
      url: `https://${where}${path}`,
      trust: { pin: token.value.fingerprint },
      method,
      headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body,
      timeoutMs: input.timeoutMs ?? JOIN_TIMEOUT_MS,
      maxBytes: MAX_ANSWER,
      signal: input.signal,
    });

  const sentAt = input.now();
  const info = await ask("GET", "/v1/cluster/join-info").catch((error: unknown) => {
    input.signal?.throwIfAborted();
    if (error instanceof HttpClientError) return error;
    throw error;
  });
  if (info instanceof HttpClientError && info.kind === "unreachable") {
    const detail = `no TLS connection to ${where} (${info.message}): check the join address (a node already in the cluster, port 8443 unless it names one) and that the init node is installed and up, then retry`;
    return result({ reachable: failed("reachable", "JOIN_UNREACHABLE", detail) }, `no TLS connection to ${where}`);
  }
  const found: Found = { reachable: { name: "reachable", ok: true, detail: `TLS connection to ${where}` } };
  if (info instanceof HttpClientError && info.kind === "tls-mismatch") {
    return result({ ...found, fingerprint: failed("fingerprint", "JOIN_FINGERPRINT_MISMATCH", fingerprintProblem(info.presented, token.value, where)) }, "the certificate is not the token's, so nothing was sent");
  }
  found.fingerprint = { name: "fingerprint", ok: true, detail: `the certificate's SHA-256 is the token's (${token.value.fingerprint.slice(0, 16)}…)` };
  Object.assign(found, judgeInfo(info, sentAt, input, where));

  const proof = await proveSecret(token.value, where, (body) => ask("POST", "/v1/cluster/join-check", body));
  input.signal?.throwIfAborted();
  return result({ ...found, token: proof }, `GET /v1/cluster/join-info at ${where} gave no usable answer`);
}

/** The answers are small JSON; more is no cluster API. */
const MAX_ANSWER = 64 * 1024;

function fingerprintProblem(actual: string | undefined, token: JoinToken, where: string): string {
  const presented = actual ? `a certificate with SHA-256 ${actual.slice(0, 16)}…` : "no certificate";
  return `${where} presented ${presented}, the token pins ${token.fingerprint.slice(0, 16)}…: the join address is not the node the token came from, or the token is another cluster's; check the join address and copy the token again from the init node (nothing was sent)`;
}

function judgeInfo(info: Answer | HttpClientError, sentAt: Date, input: JoinCheckInput, where: string): Found {
  const parsed = info instanceof HttpClientError ? { ok: false as const, problem: info.message } : parseJoinInfo(info);
  if (!parsed.ok) {
    const detail = `GET /v1/cluster/join-info at ${where}: ${parsed.problem}: is the init node installed, with its cloud API up and of a release with the join check? then retry`;
    return { "join-info": failed("join-info", "JOIN_UNREACHABLE", detail) };
  }
  return {
    "join-info": { name: "join-info", ok: true, detail: `${where} answered GET /v1/cluster/join-info` },
    ...judgeJoinInfo(parsed.info, { clusterName: input.clusterName, release: input.release, sentAt, receivedAt: input.now() }),
  };
}

/**
 * Under the same pin as the join info: on the join info's own connection when the shared idle pool hands it back
 * (its certificate checked at its handshake), else on a new one whose certificate is checked before the proof is
 * written. Either way no proof goes to a certificate other than the token's.
 */
async function proveSecret(token: JoinToken, where: string, post: (body: string) => Promise<Answer>): Promise<JoinCheck> {
  const nonce = newNonce();
  const answer = await post(JSON.stringify({ nonce, proof: joinProof(token.secret, nonce) })).catch((error: unknown) => {
    if (error instanceof HttpClientError) return error;
    throw error;
  });
  if (answer instanceof HttpClientError) {
    if (answer.kind === "unreachable") return failed("token", "JOIN_UNREACHABLE", `no second TLS connection to ${where} for the proof (${answer.message}): retry once the init node answers`);
    if (answer.kind === "tls-mismatch") return failed("token", "JOIN_FINGERPRINT_MISMATCH", `the certificate changed between two connections: ${fingerprintProblem(answer.presented, token, where)}`);
    return failed("token", "JOIN_UNREACHABLE", `POST /v1/cluster/join-check at ${where}: ${answer.message}: retry once the init node answers`);
  }
  if (answer.status === 204) return { name: "token", ok: true, detail: "the cluster accepted the proof of the token's secret" };
  if (answer.status === 403) {
    return failed("token", "JOIN_TOKEN_REFUSED", `the cluster at ${where} refused the proof: the token's secret is not this cluster's (another cluster's token, or an old one); copy the token again from the init node`);
  }
  return failed("token", "JOIN_UNREACHABLE", `POST /v1/cluster/join-check at ${where} answered HTTP ${answer.status}, expected 204 (accepted) or 403 (refused): is the init node installed with its cloud API up? then retry`);
}
