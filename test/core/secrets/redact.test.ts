import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DraftSchema } from "../../../core/config/index.ts";
import { toSnake } from "../../../core/config/paths.ts";
import { createRedactor, redactDraft, REDACTED, SECRET_FIELDS } from "../../../core/secrets/index.ts";
import { SECRET_NODE_YAML_FIELDS, spellings } from "../../../core/secrets/redact.ts";
import { HA_JOIN } from "../config/fixtures.ts";

describe("redactDraft", () => {
  it("replaces the join token and the password hash", () => {
    const redacted = redactDraft(HA_JOIN) as typeof HA_JOIN;
    assert.equal(redacted.cluster?.joinToken, "[redacted]");
    assert.equal(redacted.admin?.passwordHash, "[redacted]");
    assert.equal(redacted.cluster?.joinAddress, HA_JOIN.cluster?.joinAddress);
    assert.deepEqual(redacted.admin?.sshAuthorizedKeys, HA_JOIN.admin?.sshAuthorizedKeys);
    assert.notEqual(HA_JOIN.cluster?.joinToken, "[redacted]", "the input is not changed");
  });

  it("adds nothing that was not there", () => {
    assert.deepEqual(redactDraft({ mode: "single-node", admin: { sshAuthorizedKeys: [] } }), { mode: "single-node", admin: { sshAuthorizedKeys: [] } });
    for (const value of [null, "x", 3, [1], { cluster: "x" }]) assert.deepEqual(redactDraft(value), value);
  });

  it("redacts invalid values and node.yaml spellings too", () => {
    assert.deepEqual(redactDraft({ cluster: { joinToken: 42 } }), { cluster: { joinToken: "[redacted]" } });
    assert.deepEqual(redactDraft({ cluster: { join_token: "t" }, admin: { password_hash: "h" } }), {
      cluster: { join_token: "[redacted]" },
      admin: { password_hash: "[redacted]" },
    });
  });

  it("lists secret fields that exist in the draft schema", () => {
    assert.deepEqual([...SECRET_FIELDS], ["cluster.joinToken", "admin.passwordHash"]);
    for (const field of SECRET_FIELDS) {
      const [section = "", key = ""] = field.split(".");
      const sectionSchema = DraftSchema.shape[section as keyof typeof DraftSchema.shape].unwrap() as { shape: Record<string, unknown> };
      assert.ok(key in sectionSchema.shape, field);
    }
  });

  it("spells the secret fields in node.yaml's snake_case", () => {
    assert.deepEqual(SECRET_NODE_YAML_FIELDS, SECRET_FIELDS.map((field) => field.split(".").map(toSnake).join(".")));
  });
});

describe("createRedactor", () => {
  it("a secret a firstboot echoes in base64 or base64url, padded or not, is redacted like the secret itself", () => {
    const secret = "jt-SECRET-4711-token?>";
    const redactor = createRedactor(() => spellings(secret));
    const bytes = Buffer.from(secret);
    for (const spelled of [bytes.toString("base64"), bytes.toString("base64url"), bytes.toString("base64").replace(/=+$/, "")]) {
      assert.equal(redactor.text(`firstboot: token ${spelled} set`), `firstboot: token ${REDACTED} set`, spelled);
    }
  });
});
