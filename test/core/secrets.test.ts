import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { draftSecrets } from "../../core/secrets.ts";

const TOKEN = "jt-SECRET-4711-token";
const HASH = "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0";
const yaml = (text: string) => draftSecrets({ source: "yaml", yaml: text, revision: 1, updatedAt: null });

describe("draftSecrets", () => {
  test("a node.yaml that parses: its join token and password hash", () => {
    assert.deepEqual(yaml(`cluster:\n  join_token: ${TOKEN}\nadmin:\n  password_hash: '${HASH}'\n`), [TOKEN, HASH]);
  });

  for (const [name, text] of [
    ["a bad indent", `mode: join\ncluster:\n  join_token: ${TOKEN}\n   join_address: 10.20.0.5\nadmin:\n  password_hash: ${HASH}\n`],
    ["unclosed quotes and a comment", `mode: join\ncluster:\n  join_token: "${TOKEN}\nadmin:\n  password_hash: '${HASH}' # from the vault\n  - x: [\n`],
    ["a duplicate key", `cluster:\n  join_token: "${TOKEN}"\n  join_token: x\nadmin: {}\nadmin:\n  password_hash: ${HASH}\n`],
    ["an alias bomb past the limits", `cluster:\n  join_token: ${TOKEN}\nadmin:\n  password_hash: ${HASH}\na0: &a0 [x, x]\n${Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(8).fill(`*a${i}`).join(", ")}]`).join("\n")}\n`],
  ] as const) {
    test(`a node.yaml that does not parse (${name}): the values on the secret keys' lines`, () => {
      const secrets = yaml(text);
      assert.ok(secrets.includes(TOKEN) && secrets.includes(HASH), JSON.stringify(secrets));
    });
  }
});
