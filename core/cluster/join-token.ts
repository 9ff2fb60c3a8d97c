/** The join token of SPEC §6: `STRATUM1:<fingerprint>:<secret>`. Pure; no message here ever quotes a token or a secret. */
import { randomBytes } from "node:crypto";

export interface JoinToken {
  /** SHA-256 of the founding node's cloud API certificate (DER), 64 lowercase hex digits. */
  fingerprint: string;
  /** ≥ 128 bits, base64url without padding. */
  secret: string;
}

type ParsedToken = { ok: true; value: JoinToken } | { ok: false; problem: string };

const PREFIX = "STRATUM1";
const MIN_SECRET_CHARS = 22; // 22 × 6 bits ≥ 128 bits
const MAX_SECRET_CHARS = 512;

const TOKEN_SHAPE = `${PREFIX}:<fingerprint>:<secret>`;
export const TOKEN_HINT =
  "copy the token from the installed init node (GET /v1/installer/cluster/join-token on its installer, or its console), or let `fleet` fill it in";

export function generateSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Why a text is not a secret, or undefined when it is one. */
export function secretProblem(secret: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(secret)) return "the secret has characters outside base64url (A–Z, a–z, 0–9, - and _, no padding)";
  if (secret.length < MIN_SECRET_CHARS) return `the secret is shorter than ${MIN_SECRET_CHARS} base64url characters (128 bits)`;
  if (secret.length > MAX_SECRET_CHARS) return `the secret is longer than ${MAX_SECRET_CHARS} characters`;
  // A length of 4n+1 leaves 6 bits that decode to no byte: not base64url.
  if (secret.length % 4 === 1) return "the secret is not valid base64url (its length leaves a lone character)";
  return undefined;
}

/** An ha-init draft may carry the secret alone; the token is made from it once the node is installed. */
export function isBareSecret(text: string): boolean {
  return secretProblem(text) === undefined;
}

export function parseJoinToken(text: string): ParsedToken {
  const fail = (what: string): ParsedToken => ({ ok: false, problem: `not a join token (expected ${TOKEN_SHAPE}): ${what}` });
  if (isBareSecret(text)) return fail("this is a bare secret, which only an ha-init draft carries; a join needs the whole token");
  if (/\s/.test(text)) return fail("it has a blank or a line break in it (a paste can add one): copy it again as one line, with nothing before or after it");
  const parts = text.split(":");
  if (parts[0] !== PREFIX) return fail(`it does not start with ${PREFIX}:`);
  if (parts.length !== 3) return fail(`it has ${parts.length - 1} colon${parts.length === 2 ? "" : "s"} where the shape has 2`);
  const [, fingerprint = "", secret = ""] = parts;
  if (!/^[0-9a-f]{64}$/.test(fingerprint)) return fail("its fingerprint is not 64 lowercase hex digits (a SHA-256)");
  const problem = secretProblem(secret);
  if (problem) return fail(problem.replace(/^the secret/, "its secret"));
  return { ok: true, value: { fingerprint, secret } };
}

export function formatJoinToken(token: JoinToken): string {
  return `${PREFIX}:${token.fingerprint}:${token.secret}`;
}

/** A field error's message and hint for a text that is not a join token, or undefined when it is one. */
export function joinTokenProblem(text: string): { message: string; hint: string } | undefined {
  const parsed = parseJoinToken(text);
  return parsed.ok ? undefined : { message: parsed.problem, hint: TOKEN_HINT };
}
