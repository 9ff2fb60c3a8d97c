import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import { DraftSchema } from "../../../core/config/index.ts";
import { toSnake } from "../../../core/config/paths.ts";
import { createRedactor, redactDraft, REDACTED, SECRET_FIELDS } from "../../../core/secrets/index.ts";
import { keySpellings, privateKeyLines, SECRET_NODE_YAML_FIELDS, spellings } from "../../../core/secrets/redact.ts";
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

describe("createRedactor: private keys", () => {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pkcs8 = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  const sec1 = privateKey.export({ type: "sec1", format: "pem" }) as string;
  const encrypted = privateKey.export({ type: "sec1", format: "pem", cipher: "aes-128-cbc", passphrase: "pass" }) as string;
  const ownLines = (pem: string) => pem.split("\n").filter((line) => line.length >= 4 && !line.startsWith("-----"));

  it("any private key in PEM in a text (a log line, a JSON string, a message), unknown to the installer: none of it shows; the text around it does", () => {
    const redactor = createRedactor(() => []);
    for (const key of [pkcs8, sec1, encrypted, pkcs8.replace(/\n-----END.*\n$/, "\n")]) {
      for (const text of [`before ${key} after.`, JSON.stringify({ message: `before ${key}`, at: 1 })]) {
        const out = redactor.text(text);
        for (const line of ownLines(key)) assert.ok(!out.includes(line) && !out.includes(JSON.stringify(line).slice(1, -1)), `${line} in ${out}`);
        assert.ok(out.startsWith(text.slice(0, text.indexOf("before") + 7)), out);
      }
      assert.doesNotThrow(() => JSON.parse(redactor.text(JSON.stringify({ message: key, at: 1 }))), "a JSON line stays JSON");
    }
  });

  it("the installer's own TLS key: its body lines alone and joined on one line are redacted, and another key's BEGIN line is not taken for it", () => {
    const redactor = createRedactor(() => keySpellings(pkcs8));
    for (const line of ownLines(pkcs8)) assert.equal(redactor.text(`x ${line} y`), `x ${REDACTED} y`);
    assert.equal(redactor.text(`x ${ownLines(pkcs8).join("")} y`), `x ${REDACTED} y`);
    const other = (generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }) as string);
    const out = redactor.text(`a ${other}`);
    for (const line of ownLines(other)) assert.ok(!out.includes(line), out);
  });

  it("a key printed a line at a time: each line after its BEGIN line is one of its own until its END line, or the first line that is no body line", () => {
    for (const pem of [pkcs8, sec1, encrypted]) {
      const key = privateKeyLines();
      const lines = [`key: ${pem.split("\n")[0]}`, ...pem.trimEnd().split("\n").slice(1), "after"];
      assert.deepEqual(lines.map((line) => key.ownLine(line)), [false, ...pem.trimEnd().split("\n").slice(1, -1).map(() => true), false, false], pem);
    }
    const key = privateKeyLines();
    assert.deepEqual(["-----BEGIN PRIVATE KEY-----", "MIGHAgEAMBMG", "firstboot: next step.", "MIGHAgEAMBMG"].map((line) => key.ownLine(line)), [false, true, false, false]);
  });

  it("a key whose every line a firstboot prefixes (a log's stamp, a step's name): its lines are its own all the same, its short last line too", () => {
    for (const pem of [pkcs8, sec1, encrypted]) {
      const key = privateKeyLines();
      const lines = pem.trimEnd().split("\n").map((line) => `2026-12-07T02:00:00Z [tls] ${line}`);
      const own = pem.trimEnd().split("\n").slice(1, -1).map(() => true);
      assert.deepEqual([...lines, "2026-12-07T02:00:01Z [tls] done."].map((line) => key.ownLine(line)), [false, ...own, false, false], pem);
    }
  });

  it("a key whose every line a firstboot colours (terminal escapes around it, raw as it prints them or JSON-escaped as an event holds them): its lines are its own all the same", () => {
    for (const pem of [pkcs8, sec1, encrypted]) {
      for (const [open, close] of [["\u001b[32m", "\u001b[0m"], ["\\u001b[1;32m", "\\u001b[0m"]]) {
        const key = privateKeyLines();
        const lines = pem.trimEnd().split("\n").map((line) => `${open}${line}${close}`);
        const own = pem.trimEnd().split("\n").slice(1, -1).map(() => true);
        assert.deepEqual([...lines, `${open}done.${close}`].map((line) => key.ownLine(line)), [false, ...own, false, false], `${JSON.stringify(open)} ${pem.slice(0, 40)}`);
      }
    }
  });

  it("a key coloured with other escapes a terminal takes (tput sgr0's ESC ( B, 8-bit CSI, an OSC title or link, each raw or written out as \\uXXXX): its lines are its own all the same", () => {
    const forms: [string, string][] = [
      ["\u001b[32m", "\u001b(B\u001b[m"],
      ["\\u001b[32m", "\\u001b(B\\u001b[m"],
      ["\u009b32m", "\u009b0m"],
      ["\\u009b32m", "\\u009b0m"],
      ["\u001b]0;tls\u0007\u001b[1m", "\u001b]8;;\u001b\\\u001b[0m"],
      ["\\u001b]0;tls\\u0007", "\\u001b]8;;\\u001b\\"],
    ];
    for (const pem of [pkcs8, sec1, encrypted]) {
      for (const [open, close] of forms) {
        const key = privateKeyLines();
        const lines = pem.trimEnd().split("\n").map((line) => `${open}${line}${close}`);
        const own = pem.trimEnd().split("\n").slice(1, -1).map(() => true);
        assert.deepEqual([...lines, `${open}done.${close}`].map((line) => key.ownLine(line)), [false, ...own, false, false], `${JSON.stringify([open, close])} ${pem.slice(0, 40)}`);
      }
    }
  });

  // Linear, each line takes milliseconds; a backtracking blow-up on 20,000 units would take longer than the universe has:
  // the test's own timeout, far above any busy machine's milliseconds, is the bound (no figure of the clock asserted).
  it("judging a hostile line of escapes takes linear time (no backtracking blow-up)", { timeout: 60_000 }, () => {
    const key = privateKeyLines();
    key.ownLine("-----BEGIN PRIVATE KEY-----");
    for (const unit of ["\u001b[", "\u001b]", "\u009d", "\\u001b[1;", "\u001b[0;0;0;0", "\u001b( ", "\\u001b]x"]) assert.equal(typeof key.ownLine(unit.repeat(20_000)), "boolean", JSON.stringify(unit));
  });
});
