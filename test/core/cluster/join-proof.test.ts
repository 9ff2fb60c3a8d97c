import assert from "node:assert/strict";
import { test } from "node:test";
import { isValidProof, joinProof, newNonce } from "../../../core/cluster/join-proof.ts";

const SECRET = "q3Jm0sV9-Xk_1bT4rW8zLg";
const NONCE = "n0nce-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

test("the proof is hex HMAC-SHA256 keyed by the secret's text, over the nonce's text (as openssl computes it)", () => {
  // printf %s "$NONCE" | openssl dgst -sha256 -hmac "$SECRET"
  assert.equal(joinProof(SECRET, NONCE), "943b91ff52f1bca67bd60924f601fef2361ffe2cfa3e0316614f7e0e02cab206");
});

test("isValidProof accepts the proof and nothing else", () => {
  const proof = joinProof(SECRET, NONCE);
  assert.equal(isValidProof(SECRET, NONCE, proof), true);
  assert.equal(isValidProof(SECRET, NONCE, proof.toUpperCase()), false);
  assert.equal(isValidProof(SECRET, NONCE, proof.slice(1)), false);
  assert.equal(isValidProof(SECRET, `${NONCE}x`, proof), false);
  assert.equal(isValidProof(`${SECRET}x`, NONCE, proof), false);
  assert.equal(isValidProof(SECRET, NONCE, ""), false);
});

test("a nonce is 32 fresh random bytes in base64url", () => {
  const nonce = newNonce();
  assert.match(nonce, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(newNonce(), nonce);
});
