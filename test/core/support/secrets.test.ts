import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { test } from "node:test";
import { createBundleRedactor, draftNamedSecrets, secretsInBrokenStore } from "../../../core/support/secrets.ts";

const TOKEN = `STRATUM1:${"c4".repeat(32)}:Hx3Jd9Lw2Pq7Zr5Tv8Nb1Mk4Gf6Ds0Ae-Uy_Io3Wxy`;
const SECRET = TOKEN.split(":")[2]!;
const HASH = `$6$rounds=5000$o'salt$${"Qw".repeat(43)}`;
const KEY = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const b64 = (text: string) => Buffer.from(text).toString("base64");

test("every spelling of each secret becomes a marker naming it", () => {
  const redactor = createBundleRedactor([
    { name: "join token", value: TOKEN },
    { name: "join token secret", value: SECRET },
    { name: "password hash", value: HASH },
    { name: "TLS private key", value: KEY },
  ]);
  const body = KEY.split("\n").filter((line) => line && !line.startsWith("-----"));
  for (const [spelling, marker] of [
    [TOKEN, "[redacted: join token]"],
    [`secret=${SECRET}`, "secret=[redacted: join token secret]"],
    [JSON.stringify(HASH), JSON.stringify("[redacted: password hash]")],
    [`'${HASH.replaceAll("'", "''")}'`, "'[redacted: password hash]'"],
    [b64(TOKEN), "[redacted: join token]"],
    [b64(HASH).replace(/=+$/, ""), "[redacted: password hash]"],
    [Buffer.from(TOKEN).toString("base64url"), "[redacted: join token]"],
    [KEY, "[redacted: TLS private key]"],
    [`key line ${body[1]}`, "key line [redacted: TLS private key]"],
    [body.join(""), "[redacted: TLS private key]"],
    [JSON.stringify(KEY), JSON.stringify("[redacted: TLS private key]")],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "[redacted: private key]"],
  ] as const) {
    assert.equal(redactor.text(spelling), marker, spelling.slice(0, 30));
  }
});

test("a draft's secrets are named, and so is each piece of one split over lines", () => {
  const yaml = `mode: join\ncluster:\n  join_token: "${TOKEN.slice(0, 30)}\\\n    ${TOKEN.slice(30)}"\nadmin:\n  password_hash: '${HASH.replaceAll("'", "''")}'\n`;
  const named = draftNamedSecrets({ source: "yaml", yaml, revision: 1, updatedAt: null });
  assert.deepEqual(named.slice(0, 3).map((s) => s.name), ["join token", "join token secret", "password hash"]);
  const redactor = createBundleRedactor(named);
  assert.match(redactor.text(`    ${TOKEN.slice(30)}"`), /^ {4}\[redacted: join token\]"?$/);
  assert.doesNotMatch(redactor.text(yaml), /Hx3Jd9|Qw{4}|c4c4c4c4/);
});

test("a store that does not parse still gives up the secrets it holds, a cut one too", () => {
  const store = JSON.stringify({ draft: { source: "yaml", yaml: `cluster:\n  join_token: ${TOKEN}\n` }, cluster: { secret: SECRET }, admin: { passwordHash: HASH } });
  const found = secretsInBrokenStore(store.slice(0, store.indexOf(HASH) + 20));
  const redactor = createBundleRedactor(found);
  assert.doesNotMatch(redactor.text(store), new RegExp(`${TOKEN.slice(-12)}|${SECRET.slice(0, 12)}`));
  assert.ok(found.some((s) => s.name === "password hash" && HASH.startsWith(s.value)), "the hash's surviving part is found");
});
