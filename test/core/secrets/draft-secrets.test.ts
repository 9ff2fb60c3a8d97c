import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { isAlias, isScalar, parseDocument, stringify } from "yaml";
import { renderNodeYaml } from "../../../core/config/index.ts";
import type { DraftRecord } from "../../../core/state/records.ts";
import { createRedactor, draftSecrets, REDACTED, redactedNodeYaml } from "../../../core/secrets/index.ts";
import { spellings } from "../../../core/secrets/redact.ts";
import { SINGLE_NODE } from "../config/fixtures.ts";

const CODE = "ABCD-EFGH-JKMN";
/** The redactor leaves shorter pieces of a multi-line secret alone (they would hide common text everywhere). */
const MIN_PIECE = 4;
const NASTY = ["'", '"', "\\", "#", ":", ": ", " #", "\n", "\r\n", "\r", "\t", " ", "  ", "-", "|", ">", "&", "*", "!", "%", "@", "`", "{", "[", ",", "é", "✓", "😀", "\u2028", "\u0085", "\0", "\ud800", "S3CRET", "tok", "x"];

/** Tokens built from YAML's and JSON's special characters, whitespace at either end, newlines and non-ASCII. */
const token = fc
  .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 24 })
  .map((parts) => parts.join(""))
  .filter((t) => t.length >= MIN_PIECE);

const FIELDS = [
  { field: "cluster.joinToken", path: ["cluster", "join_token"], draft: (t: string) => ({ ...SINGLE_NODE, cluster: { joinToken: t } }) },
  { field: "admin.passwordHash", path: ["admin", "password_hash"], draft: (t: string) => ({ ...SINGLE_NODE, admin: { ...SINGLE_NODE.admin, passwordHash: t } }) },
] as const;

/** How a user may spell the token in a raw node.yaml draft: every style the yaml library writes, folded at a narrow width or not. */
const USER_STYLES = ["PLAIN", "QUOTE_SINGLE", "QUOTE_DOUBLE", "BLOCK_LITERAL", "BLOCK_FOLDED"] as const;

/** The text a node.yaml spells a scalar with, as its source holds it (quotes, escapes, block lines): found by parsing the whole file. */
function scalarSource(yaml: string, path: readonly string[]): string {
  const doc = parseDocument(yaml);
  let node = doc.getIn(path, true);
  if (isAlias(node)) node = node.resolve(doc);
  assert.ok(isScalar(node) && node.range, `no ${path.join(".")} in\n${yaml}`);
  return yaml.slice(node.range[0], node.range[1]);
}

/** Firstboot reads node.yaml back from the file: a lone surrogate was written as U+FFFD. */
const asWritten = (text: string) => Buffer.from(text, "utf8").toString("utf8");
/** Node's readline ends a line at \n, \r\n or a lone \r. */
const linesOf = (text: string) => text.split(/\r\n|\r|\n/);
const jsonBody = (text: string) => JSON.stringify(text).slice(1, -1);

/** The secret's spellings a reader of `output` could recognise: whole, and each line of it long enough to be told apart. */
function recognisable(secret: string): string[] {
  const pieces = linesOf(secret).map((line) => line.trim());
  return [secret, ...pieces].filter((s) => s.length >= MIN_PIECE);
}

function assertHidden(output: string, secrets: string[], where: string): void {
  for (const secret of secrets) {
    assert.ok(!output.includes(secret), `${where} still shows ${JSON.stringify(secret)}:\n${JSON.stringify(output)}`);
  }
}

/** Every output the installer makes of a node.yaml holding the secret: the file, each line firstboot prints, those lines in JSON event files and log lines. */
function assertRedacted(record: DraftRecord, secret: string, nodeYaml: string, path: readonly string[]): void {
  const redactor = createRedactor(() => [CODE, ...draftSecrets(record)]);
  const text = (value: string) => redactor.text(value);
  const written = asWritten(nodeYaml);
  const scalar = scalarSource(written, path);
  const forms = [...recognisable(secret), ...recognisable(asWritten(secret)), ...recognisable(scalar)];
  // A secret that is part of the marker would be "found" in the marker itself.
  fc.pre(forms.every((form) => !REDACTED.includes(form)));

  assertHidden(text(`firstboot: token=${secret}; done`), recognisable(secret), "free text");
  assertHidden(text(JSON.stringify({ message: `token=${secret}` })), recognisable(secret).map(jsonBody), "a JSON log line");
  assertHidden(text(written), recognisable(scalar), "node.yaml");
  assertHidden(text(JSON.stringify(written)), recognisable(scalar).map(jsonBody), "node.yaml in JSON");
  for (const line of linesOf(written)) {
    const pieces = linesOf(scalar)
      .map((piece) => piece.trim())
      .filter((piece) => piece.length >= MIN_PIECE && line.includes(piece));
    assertHidden(text(line), pieces, "a line firstboot printed");
    assertHidden(text(JSON.stringify({ type: "step.log", message: line })), pieces.map(jsonBody), "that line in an event file");
  }
}

describe("draftSecrets + createRedactor: every spelling of a secret the installer produces is redacted", () => {
  it("a structured draft: the secret raw, JSON-escaped, and as the installer's node.yaml renders it, line by line", () => {
    fc.assert(
      fc.property(token, fc.constantFrom(...FIELDS), (secret, { draft, path }) => {
        const config = draft(secret);
        const record: DraftRecord = { source: "structured", config, revision: 1, updatedAt: null };
        assertRedacted(record, secret, renderNodeYaml(config), path);
      }),
      { numRuns: 500, examples: [[`tok'"\\x#: S3CRET`, FIELDS[0]], [" lead and trail\t", FIELDS[1]], ["two\nlines\there", FIELDS[0]]] },
    );
  });

  it("a raw node.yaml draft: the secret as the user spelled it (quoted, escaped, folded, block) is what firstboot prints", () => {
    fc.assert(
      fc.property(
        token,
        fc.constantFrom(...FIELDS),
        fc.constantFrom(...USER_STYLES),
        fc.constantFrom(0, 12, 40),
        (token, { path }, style, lineWidth) => {
          const [section = "", key = ""] = path;
          const yaml = `mode: single-node\nhostname: node-01\n${stringify({ [section]: { [key]: token } }, { defaultStringType: style, defaultKeyType: "PLAIN", lineWidth, minContentWidth: 0 })}`;
          const record: DraftRecord = { source: "yaml", yaml, revision: 1, updatedAt: null };
          // What the text holds: the yaml library folds some escapes into something else at narrow widths (\0 at a fold).
          const held = parseDocument(yaml).getIn(path);
          fc.pre(typeof held === "string");
          assertRedacted(record, held, yaml, path);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a raw node.yaml draft that names the secret through an alias: the anchored scalar's spelling", () => {
    const yaml = `mode: single-node\nhostname: node-01\nx-secret: &s 'tok''"\\x#: S3CRET'\ncluster:\n  join_token: *s\n`;
    const redactor = createRedactor(() => draftSecrets({ source: "yaml", yaml, revision: 1, updatedAt: null }));
    assert.equal(redactor.text(`x-secret: &s 'tok''"\\x#: S3CRET'`), `x-secret: &s ${REDACTED}`);
  });
});

describe("draftSecrets of a structured draft", () => {
  it("without a secret (missing, empty or not text): none", () => {
    const unset = { ...SINGLE_NODE, admin: { ...SINGLE_NODE.admin, passwordHash: undefined } };
    for (const config of [{}, unset, { ...unset, cluster: { joinToken: "" } }, { ...unset, admin: { passwordHash: null } }, { cluster: "x", admin: [] }]) {
      assert.deepEqual(draftSecrets({ source: "structured", config, revision: 1, updatedAt: null }), [], JSON.stringify(config));
    }
  });
});

const LINE_TOKEN = "jt-SECRET-4711-token";
const LINE_HASH = "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0";
const yamlSecrets = (text: string) => draftSecrets({ source: "yaml", yaml: text, revision: 1, updatedAt: null });

describe("draftSecrets of a raw node.yaml", () => {
  it("a node.yaml that parses: its join token and password hash", () => {
    const secrets = yamlSecrets(`cluster:\n  join_token: ${LINE_TOKEN}\nadmin:\n  password_hash: '${LINE_HASH}'\n`);
    assert.ok(secrets.includes(LINE_TOKEN) && secrets.includes(LINE_HASH), JSON.stringify(secrets));
  });

  for (const [name, text] of [
    ["a bad indent", `mode: join\ncluster:\n  join_token: ${LINE_TOKEN}\n   join_address: 10.20.0.5\nadmin:\n  password_hash: ${LINE_HASH}\n`],
    ["unclosed quotes and a comment", `mode: join\ncluster:\n  join_token: "${LINE_TOKEN}\nadmin:\n  password_hash: '${LINE_HASH}' # from the vault\n  - x: [\n`],
    ["a duplicate key", `cluster:\n  join_token: "${LINE_TOKEN}"\n  join_token: x\nadmin: {}\nadmin:\n  password_hash: ${LINE_HASH}\n`],
    ["an alias bomb past the limits", `cluster:\n  join_token: ${LINE_TOKEN}\nadmin:\n  password_hash: ${LINE_HASH}\na0: &a0 [x, x]\n${Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(8).fill(`*a${i}`).join(", ")}]`).join("\n")}\n`],
  ] as const) {
    it(`a node.yaml that does not parse (${name}): the values on the secret keys' lines`, () => {
      const secrets = yamlSecrets(text);
      assert.ok(secrets.includes(LINE_TOKEN) && secrets.includes(LINE_HASH), JSON.stringify(secrets));
    });
  }

  for (const [name, text] of [
    ["in a flow mapping left open", `mode: ha-init\ncluster: {name: lab, join_token: ${LINE_TOKEN}\n`],
    ["on the line after its key", `mode: ha-init\ncluster:\n  join_token:\n    ${LINE_TOKEN}\n  name: [\n`],
    ["in a folded block", `cluster:\n  join_token: >-\n    ${LINE_TOKEN}\n  name: [\n`],
    ["under a quoted key", `cluster:\n  "join_token": ${LINE_TOKEN}\n  name: [\n`],
    ["on a line commented out", `# join_token: ${LINE_TOKEN}\ncluster: [\n`],
    ["under a key in capitals, in a node.yaml that parses", `cluster:\n  JOIN_TOKEN: ${LINE_TOKEN}\n`],
    ["under a key with a dash (join-token), in a node.yaml that parses", `cluster:\n  join-token: ${LINE_TOKEN}\n`],
    ["under a key with a blank (Join Token)", `cluster:\n  Join Token: ${LINE_TOKEN}\n  name: [\n`],
  ] as const) {
    it(`a join token ${name} is found`, () => {
      const secrets = yamlSecrets(text);
      assert.ok(secrets.includes(LINE_TOKEN), JSON.stringify(secrets));
    });
  }
});

describe("redactedNodeYaml: a node.yaml to show a person", () => {
  it("each secret, however the user spelled it, reads [redacted]; every other line as written", () => {
    fc.assert(
      fc.property(token, fc.constantFrom(...FIELDS), fc.constantFrom(...USER_STYLES), fc.constantFrom(0, 12, 40), (token, { path }, style, lineWidth) => {
        const [section = "", key = ""] = path;
        const yaml = `# rack 4\nmode: single-node\nhostname: node-01\n${stringify({ [section]: { [key]: token } }, { defaultStringType: style, defaultKeyType: "PLAIN", lineWidth, minContentWidth: 0 })}storage:\n  osd_devices: [/dev/sdb]\n`;
        fc.pre(typeof parseDocument(yaml).getIn(path) === "string");
        const scalar = scalarSource(yaml, path);
        // A token whose text also stands elsewhere in the file is redacted there too (the comment case below).
        fc.pre(spellings(token).every((spelling) => spelling.length < MIN_PIECE || !yaml.replace(scalar, "").includes(spelling)));
        const shown = redactedNodeYaml(yaml);
        // A block scalar's source ends with its line break, which stays.
        assert.equal(shown, yaml.replace(scalar, JSON.stringify(REDACTED) + (scalar.endsWith("\n") ? "\n" : "")));
        assert.equal(parseDocument(shown).getIn(path), REDACTED);
      }),
      { numRuns: 300 },
    );
  });

  it("both secrets, and the one scalar an alias shares once; a node.yaml without secrets or that does not parse stays as it is", () => {
    const both = `cluster:\n  join_token: ${LINE_TOKEN}\nadmin:\n  password_hash: '${LINE_HASH}'\n`;
    assert.equal(redactedNodeYaml(both), `cluster:\n  join_token: "${REDACTED}"\nadmin:\n  password_hash: "${REDACTED}"\n`);
    const aliased = `x: &s ${LINE_TOKEN}\ncluster:\n  join_token: *s\nadmin:\n  password_hash: *s\n`;
    assert.equal(redactedNodeYaml(aliased), `x: &s "${REDACTED}"\ncluster:\n  join_token: *s\nadmin:\n  password_hash: *s\n`);
    for (const text of ["mode: single-node\nhostname: node-01\n", "mode: [\n"]) assert.equal(redactedNodeYaml(text), text);
  });

  it("a secret written again in a comment, or in a node.yaml that does not parse, is redacted there too", () => {
    const noted = `# old token: ${LINE_TOKEN} (rotated)\ncluster:\n  join_token: ${LINE_TOKEN} # was ${LINE_TOKEN}\n`;
    assert.equal(redactedNodeYaml(noted), `# old token: ${REDACTED} (rotated)\ncluster:\n  join_token: "${REDACTED}" # was ${REDACTED}\n`);
    const broken = `cluster:\n  join_token: ${LINE_TOKEN}\nmode: [\n`;
    assert.ok(!redactedNodeYaml(broken).includes(LINE_TOKEN), redactedNodeYaml(broken));
  });
});
