/**
 * The join check of SPEC §6: before a joining node writes anything, it verifies the cluster it is about to join.
 * The token never leaves the node: its fingerprint pins the TLS certificate before any request is written,
 * and its secret is proven with an HMAC over a fresh nonce (see join-proof.ts).
 */
import type { TLSSocket } from "node:tls";
import { type Endpoint, authority, parseJoinAddress } from "./endpoint.ts";
import type { JoinCheckResult } from "./join-codes.ts";
import { judgeJoinInfo, parseJoinInfo } from "./join-info.ts";
import { joinProof, newNonce } from "./join-proof.ts";
import { type JoinToken, TOKEN_HINT, parseJoinToken } from "./join-token.ts";
import { requestOver } from "./request-over.ts";
import { type Deadline, openTls, peerSha256 } from "./tls-connect.ts";
import { JOIN_CHECK_NAMES, type JoinCheck, type JoinCheckName } from "../state/records.ts";

export interface JoinCheckInput {
  joinAddress: string;
  token: string;
  clusterName?: string;
  /** This node's payload release. */
  release: string;
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
  const deadline: Deadline = { timeoutMs: input.timeoutMs ?? JOIN_TIMEOUT_MS, signal: input.signal };
  const token = parseJoinToken(input.token);
  if (!token.ok) return result({ token: failed("token", "JOIN_TOKEN_REFUSED", `the draft's join token is ${token.problem}; ${TOKEN_HINT}`) }, "the join token is malformed");

  const endpoint = parseJoinAddress(input.joinAddress);
  const where = authority(endpoint);
  let socket: TLSSocket;
  try {
    socket = await openTls(endpoint, deadline);
  } catch (error) {
    input.signal?.throwIfAborted();
    const detail = `no TLS connection to ${where} (${(error as Error).message}): check the join address (a node already in the cluster, port 8443 unless it names one) and that the init node is installed and up, then retry`;
    return result({ reachable: failed("reachable", "JOIN_UNREACHABLE", detail) }, `no TLS connection to ${where}`);
  }
  const found: Found = { reachable: { name: "reachable", ok: true, detail: `TLS connection to ${where}` } };
  const mismatch = fingerprintProblem(socket, token.value, where);
  if (mismatch) {
    socket.destroy();
    return result({ ...found, fingerprint: failed("fingerprint", "JOIN_FINGERPRINT_MISMATCH", mismatch) }, "the certificate is not the token's, so nothing was sent");
  }
  found.fingerprint = { name: "fingerprint", ok: true, detail: `the certificate's SHA-256 is the token's (${token.value.fingerprint.slice(0, 16)}…)` };

  const [info, proof] = await Promise.all([readJoinInfo(socket, endpoint, input, deadline), proveSecret(endpoint, token.value, deadline)]);
  input.signal?.throwIfAborted();
  return result({ ...found, ...info, token: proof }, `GET /v1/cluster/join-info at ${where} gave no usable answer`);
}

function fingerprintProblem(socket: TLSSocket, token: JoinToken, where: string): string | undefined {
  const actual = peerSha256(socket);
  if (actual === token.fingerprint) return undefined;
  const presented = actual ? `a certificate with SHA-256 ${actual.slice(0, 16)}…` : "no certificate";
  return `${where} presented ${presented}, the token pins ${token.fingerprint.slice(0, 16)}…: the join address is not the node the token came from, or the token is another cluster's; check the join address and copy the token again from the init node (nothing was sent)`;
}

async function readJoinInfo(socket: TLSSocket, endpoint: Endpoint, input: JoinCheckInput, deadline: Deadline): Promise<Found> {
  const where = authority(endpoint);
  const sentAt = input.now();
  const parsed = await requestOver(socket, endpoint, "GET", "/v1/cluster/join-info", undefined, deadline).then(parseJoinInfo, (error: Error) => ({ ok: false as const, problem: error.message }));
  if (!parsed.ok) {
    const detail = `GET /v1/cluster/join-info at ${where}: ${parsed.problem}: is the init node installed, with its cloud API up and of a release with the join check? then retry`;
    return { "join-info": failed("join-info", "JOIN_UNREACHABLE", detail) };
  }
  return {
    "join-info": { name: "join-info", ok: true, detail: `${where} answered GET /v1/cluster/join-info` },
    ...judgeJoinInfo(parsed.info, { clusterName: input.clusterName, release: input.release, sentAt, receivedAt: input.now() }),
  };
}

/** On a connection of its own, pinned again: the certificate is checked before the proof is written. */
async function proveSecret(endpoint: Endpoint, token: JoinToken, deadline: Deadline): Promise<JoinCheck> {
  const where = authority(endpoint);
  const nonce = newNonce();
  const body = JSON.stringify({ nonce, proof: joinProof(token.secret, nonce) });
  let socket: TLSSocket;
  try {
    socket = await openTls(endpoint, deadline);
  } catch (error) {
    return failed("token", "JOIN_UNREACHABLE", `no second TLS connection to ${where} for the proof (${(error as Error).message}): retry once the init node answers`);
  }
  const mismatch = fingerprintProblem(socket, token, where);
  if (mismatch) {
    socket.destroy();
    return failed("token", "JOIN_FINGERPRINT_MISMATCH", `the certificate changed between two connections: ${mismatch}`);
  }
  const answer = await requestOver(socket, endpoint, "POST", "/v1/cluster/join-check", body, deadline).catch((error: Error) => error);
  if (answer instanceof Error) return failed("token", "JOIN_UNREACHABLE", `POST /v1/cluster/join-check at ${where}: ${answer.message}: retry once the init node answers`);
  if (answer.status === 204) return { name: "token", ok: true, detail: "the cluster accepted the proof of the token's secret" };
  if (answer.status === 403) {
    return failed("token", "JOIN_TOKEN_REFUSED", `the cluster at ${where} refused the proof: the token's secret is not this cluster's (another cluster's token, or an old one); copy the token again from the init node`);
  }
  return failed("token", "JOIN_UNREACHABLE", `POST /v1/cluster/join-check at ${where} answered HTTP ${answer.status}, expected 204 (accepted) or 403 (refused): is the init node installed with its cloud API up? then retry`);
}
