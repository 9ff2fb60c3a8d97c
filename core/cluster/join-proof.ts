/**
 * The proof of SPEC §6 step 4: the joiner shows it holds the secret without sending it.
 * proof = lowercase hex HMAC-SHA256(key = the secret's base64url text as UTF-8 bytes, message = the nonce's text as UTF-8 bytes).
 * The key is the text, not its decoded bytes, so both sides agree whatever padding or trailing bits a hand-made secret has.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export function newNonce(): string {
  return randomBytes(32).toString("base64url");
}

export function joinProof(secret: string, nonce: string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(nonce, "utf8").digest("hex");
}

export function isValidProof(secret: string, nonce: string, proof: string): boolean {
  const expected = Buffer.from(joinProof(secret, nonce), "utf8");
  const given = Buffer.from(proof, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
