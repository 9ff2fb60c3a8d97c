import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatJoinToken, generateSecret, isBareSecret, joinTokenProblem, parseJoinToken, TOKEN_HINT } from "../../../core/cluster/join-token.ts";

const FINGERPRINT = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const SECRET = "q3Jm0sV9-Xk_1bT4rW8zLg"; // 22 characters: 132 bits

describe("parseJoinToken", () => {
  const accepted: [string, string, string][] = [
    ["the shortest secret", `STRATUM1:${FINGERPRINT}:${SECRET}`, SECRET],
    ["a generated secret", `STRATUM1:${FINGERPRINT}:${"A".repeat(43)}`, "A".repeat(43)],
    ["a secret with - and _", `STRATUM1:${FINGERPRINT}:${"-_".repeat(12)}`, "-_".repeat(12)],
  ];
  for (const [name, text, secret] of accepted) {
    test(`accepts ${name}`, () => assert.deepEqual(parseJoinToken(text), { ok: true, value: { fingerprint: FINGERPRINT, secret } }));
  }

  const refused: [string, string, RegExp][] = [
    ["an empty text", "", /does not start with STRATUM1:/],
    ["another prefix", `STRATUM2:${FINGERPRINT}:${SECRET}`, /does not start with STRATUM1:/],
    ["a lowercase prefix", `stratum1:${FINGERPRINT}:${SECRET}`, /does not start with STRATUM1:/],
    ["a bare secret", SECRET, /bare secret, which only an ha-init draft carries/],
    ["no secret part", `STRATUM1:${FINGERPRINT}`, /1 colon where the shape has 2/],
    ["an extra part", `STRATUM1:${FINGERPRINT}:${SECRET}:more`, /3 colons where the shape has 2/],
    ["a short fingerprint", `STRATUM1:${FINGERPRINT.slice(1)}:${SECRET}`, /fingerprint is not 64 lowercase hex digits/],
    ["an uppercase fingerprint", `STRATUM1:${FINGERPRINT.toUpperCase()}:${SECRET}`, /fingerprint is not 64 lowercase hex digits/],
    ["a colon-separated fingerprint", `STRATUM1:9F:86:D0:${SECRET}`, /colons where the shape has 2/],
    ["a secret of 21 characters (126 bits)", `STRATUM1:${FINGERPRINT}:${SECRET.slice(1)}`, /secret is shorter than 22 base64url characters \(128 bits\)/],
    ["an empty secret", `STRATUM1:${FINGERPRINT}:`, /secret is shorter than 22/],
    ["a padded secret", `STRATUM1:${FINGERPRINT}:${SECRET}==`, /characters outside base64url/],
    ["a base64 (not url) secret", `STRATUM1:${FINGERPRINT}:${SECRET.replace("-", "+")}`, /characters outside base64url/],
    ["a secret with a blank", `STRATUM1:${FINGERPRINT}:${SECRET} `, /a blank or a line break/],
    // Pasted from a terminal or a mail: what is wrong is the blank, which the person does not see, not the prefix or the fingerprint.
    ["a token pasted after a blank", ` STRATUM1:${FINGERPRINT}:${SECRET}`, /it has a blank or a line break in it \(a paste can add one\)/],
    ["a token pasted with its line break", `STRATUM1:${FINGERPRINT}:${SECRET}\n`, /it has a blank or a line break in it/],
    ["a token wrapped inside its fingerprint", `STRATUM1:${FINGERPRINT.slice(0, 30)}\r\n${FINGERPRINT.slice(30)}:${SECRET}`, /it has a blank or a line break in it/],
    ["a secret of 4n+1 characters", `STRATUM1:${FINGERPRINT}:${"A".repeat(25)}`, /lone character/],
    ["a secret too long", `STRATUM1:${FINGERPRINT}:${"A".repeat(516)}`, /longer than 512/],
  ];
  for (const [name, text, reason] of refused) {
    test(`refuses ${name}, never quoting it`, () => {
      const parsed = parseJoinToken(text);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.match(parsed.problem, /^not a join token \(expected STRATUM1:<fingerprint>:<secret>\): /);
      assert.match(parsed.problem, reason);
      for (const part of text.split(":").map((p) => p.trim()).filter((p) => p.length > 8)) assert.ok(!parsed.problem.includes(part), `the problem quotes ${part}`);
    });
  }
});

test("joinTokenProblem gives the field error's message and where tokens come from, or nothing for a token", () => {
  assert.equal(joinTokenProblem(`STRATUM1:${FINGERPRINT}:${SECRET}`), undefined);
  const problem = joinTokenProblem(`STRATUM1:${FINGERPRINT}:short`);
  assert.deepEqual(problem, {
    message: "not a join token (expected STRATUM1:<fingerprint>:<secret>): its secret is shorter than 22 base64url characters (128 bits)",
    hint: TOKEN_HINT,
  });
  assert.match(TOKEN_HINT, /GET \/v1\/installer\/cluster\/join-token/);
  assert.match(TOKEN_HINT, /fleet/);
});

test("formatJoinToken and parseJoinToken round-trip a generated secret", () => {
  const secret = generateSecret();
  assert.equal(secret.length, 43); // 32 bytes
  assert.equal(Buffer.from(secret, "base64url").length, 32);
  assert.notEqual(generateSecret(), secret);
  const text = formatJoinToken({ fingerprint: FINGERPRINT, secret });
  assert.equal(text, `STRATUM1:${FINGERPRINT}:${secret}`);
  assert.deepEqual(parseJoinToken(text), { ok: true, value: { fingerprint: FINGERPRINT, secret } });
});

describe("isBareSecret", () => {
  const cases: [string, boolean][] = [
    [SECRET, true],
    [generateSecret(), true],
    [SECRET.slice(1), false],
    [`STRATUM1:${FINGERPRINT}:${SECRET}`, false],
    ["correct horse battery staple", false],
    ["", false],
  ];
  for (const [text, bare] of cases) test(`${JSON.stringify(text.slice(0, 30))} → ${bare}`, () => assert.equal(isBareSecret(text), bare));
});
