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

test("the spellings a firstboot that passes a secret on prints: URL-encoded, hex, base64 inside a longer text, a piece of one folded away", () => {
  const redactor = createBundleRedactor([
    { name: "join token", value: TOKEN },
    { name: "join token secret", value: SECRET },
    { name: "password hash", value: HASH },
  ]);
  const cases: Array<[string, RegExp]> = [
    [`curl 'https://x/?h=${encodeURIComponent(HASH)}'`, /h=\[redacted: password hash\]'$/],
    [Buffer.from(SECRET).toString("hex"), /^\[redacted: join token secret\]$/],
    [Buffer.from(SECRET).toString("hex").toUpperCase(), /^\[redacted: join token secret\]$/],
    // base64 of "token: <secret>\n" (`printf 'token: %s\n' "$tok" | base64`): the secret starts mid-group, at each of the three offsets.
    ...["token: ", "token:  ", "tok: "].map((before): [string, RegExp] => [Buffer.from(`${before}${SECRET}\n`).toString("base64"), /\[redacted: join token secret\]/]),
    // A token continued on the next line with a backslash: the first line holds 20 of the secret's 43 characters.
    [`join_token: "STRATUM1:${"c4".repeat(32)}:${SECRET.slice(0, 20)}\\`, /:\[redacted: join token secret\]\\$/],
    [`the hash's tail: ${HASH.slice(-40)}`, /tail: \[redacted: password hash\]$/],
  ];
  for (const [text, expected] of cases) assert.match(redactor.text(text), expected, text);
  assert.equal(redactor.text("a text of its own, no secret in it: 0123456789abcdef"), "a text of its own, no secret in it: 0123456789abcdef");
});

test("the install code in any case, with or without its dashes (the API takes each as the code)", () => {
  const redactor = createBundleRedactor([{ name: "install code", value: "J3X2-34C6-TYH9" }]);
  for (const spelling of ["J3X2-34C6-TYH9", "j3x2-34c6-tyh9", "J3X234C6TYH9", "j3x234c6tyh9", "J3X2 34C6 TYH9"]) {
    assert.equal(redactor.text(`code=${spelling};`), "code=[redacted: install code];", spelling);
  }
  assert.equal(redactor.text("XJ3X234C6TYH9X"), "XJ3X234C6TYH9X".replace("J3X234C6TYH9", "[redacted: install code]"));
});

test("a join token or a crypt hash the bundle was never told of (an old one, a store that does not parse) is known by its shape", () => {
  const redactor = createBundleRedactor([]);
  const other = `STRATUM1:${"9f".repeat(32)}:Zx1Cv2Bn3Mq4Wr5Et6Yu7Io8Pa9Sd0Fg-Hj_Kl1Zx2`;
  assert.equal(redactor.text(`join with ${other} now`), "join with [redacted: join token] now");
  for (const hash of [`$6$rounds=5000$somesalt$${"Ab".repeat(43)}`, `$y$j9T$saltsaltsalt$${"c".repeat(43)}`, `$5$salt$${"d".repeat(43)}`]) {
    assert.equal(redactor.text(`old hash was "${hash}" then`), `old hash was "[redacted: password hash]" then`, hash);
  }
  assert.equal(redactor.text("price: $6$ per unit"), "price: $6$ per unit");
});

test("a PEM private key's BEGIN line alone (each line of firstboot's output is an event) cuts only that line's key, not the JSON after it", () => {
  const redactor = createBundleRedactor([]);
  const line = JSON.stringify({ seq: 5, type: "firstboot.output", line: "-----BEGIN OPENSSH PRIVATE KEY-----" });
  const out = redactor.text(line);
  assert.doesNotThrow(() => JSON.parse(out), out);
  assert.match(JSON.parse(out).line, /\[redacted: private key\]/);
});

test("a secret written with YAML escapes in a raw draft, echoed as written without its quotes, is redacted", () => {
  const escaped = HASH.replaceAll("$", "\\x24").replaceAll("'", "\\x27");
  const yaml = `mode: single-node\nadmin:\n  password_hash: "${escaped}"\n`;
  const redactor = createBundleRedactor(draftNamedSecrets({ source: "yaml", yaml, revision: 1, updatedAt: null }));
  assert.equal(redactor.text(`plain hash=${escaped}`), "plain hash=[redacted: password hash]");
});

test("each spelling is found wherever it sits in a line, whatever is around it (the quick look that skips lines with no secret misses none)", () => {
  const redactor = createBundleRedactor([{ name: "join token secret", value: SECRET }, { name: "password hash", value: HASH }]);
  const spellings = [SECRET, JSON.stringify(HASH).slice(1, -1), b64(SECRET), Buffer.from(SECRET).toString("hex"), encodeURIComponent(HASH), SECRET.slice(5, 27)];
  const around = ["", "x", "é", "\u{1F600}", "S", SECRET.slice(0, 1), "$6", '{"line":"'];
  for (const spelling of spellings) {
    for (const before of around) {
      for (const after of around) {
        const out = redactor.text(`${before}${spelling}${after}`);
        assert.match(out, /\[redacted: (join token secret|password hash)\]/, `${before}|${spelling.slice(0, 12)}|${after}`);
        assert.ok(!out.includes(SECRET.slice(8, 24)) && !out.includes(HASH.slice(-30)), out);
      }
    }
  }
});

test("a secret with a lone surrogate (a draft may hold one) is redacted, and the bundle's redactor is made: encodeURIComponent threw on it", () => {
  const odd = `\uD800${HASH.slice(1)}`;
  const redactor = createBundleRedactor([{ name: "password hash", value: odd }]);
  assert.equal(redactor.text(`hash ${odd}.`), "hash [redacted: password hash].");
});

test("a piece of a long secret is found at any offset, its last characters too; the install code with any separators between any characters", () => {
  const redactor = createBundleRedactor([{ name: "join token secret", value: SECRET }, { name: "install code", value: "K7QX-M2PD-R4TV" }]);
  for (let start = 0; start + 16 <= SECRET.length; start++) {
    assert.doesNotMatch(redactor.text(`<${SECRET.slice(start, start + 16)}>`), new RegExp(SECRET.slice(start, start + 16).replace(/[-]/g, "\\-")), `at ${start}`);
  }
  for (const spelling of ["K7QX  M2PD  R4TV", "K7QX - M2PD - R4TV", "K7 QX M2 PD R4 TV", "k7qx_m2pd_r4tv".replaceAll("_", "")]) {
    assert.equal(redactor.text(`code ${spelling};`), "code [redacted: install code];", spelling);
  }
});

test("a JSON string whose value is a secret keeps its quotes: the file still parses (a quoted spelling of the draft's node.yaml replaced them)", () => {
  const yaml = `mode: join\ncluster:\n  join_token: "${TOKEN}"\nadmin:\n  password_hash: '${HASH.replaceAll("'", "''")}'\n`;
  const redactor = createBundleRedactor(draftNamedSecrets({ source: "yaml", yaml, revision: 1, updatedAt: null }));
  const json = JSON.stringify({ joinToken: TOKEN, passwordHash: HASH.replace("'", "") }, null, 2);
  const out = redactor.text(json);
  assert.deepEqual(Object.keys(JSON.parse(out)), ["joinToken", "passwordHash"]);
  assert.match(JSON.parse(out).joinToken, /^\[redacted: join token\]$/);
});

test("a private key with no END line in a message takes only its own base64 with it, not the rest of the message", () => {
  const redactor = createBundleRedactor([]);
  const out = redactor.text(JSON.stringify({ message: "last output: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB | Installing /usr/lib/stratum | payload sha256 ab12" }));
  assert.match(JSON.parse(out).message, /^last output: \[redacted: private key\] ?\| Installing \/usr\/lib\/stratum \| payload sha256 ab12$/);
});

test("a crypt hash's shape is a crypt hash's, not shell text that has a $1$ or $5$ in it", () => {
  const redactor = createBundleRedactor([]);
  for (const text of ['mv "$1$SUFFIX/var/lib/stratum/agent"', "s/$5$PREFIX/usr/local/bin/g", "$$6$$HOME/.cache/stratum/images"]) assert.equal(redactor.text(text), text);
  for (const hash of [`$6$rounds=5000$somesalt$${"Ab".repeat(43)}`, `$5$salt$${"d".repeat(43)}`, `$y$j9T$saltsaltsalt$${"c".repeat(43)}`, `$2b$12$${"e".repeat(53)}`, `$1$salt1234$${"f".repeat(22)}`]) {
    assert.equal(redactor.text(`hash: ${hash} `), "hash: [redacted: password hash] ", hash);
  }
});

test("a join secret as the bytes it stands for, in hex or standard base64, and in base64's other alphabet, is redacted", () => {
  const redactor = createBundleRedactor([{ name: "join token secret", value: SECRET }]);
  const bytes = Buffer.from(SECRET, "base64url");
  for (const spelling of [bytes.toString("hex"), bytes.toString("hex").toUpperCase(), bytes.toString("base64"), bytes.toString("base64").replace(/=+$/, ""), SECRET.replaceAll("-", "+").replaceAll("_", "/")]) {
    assert.equal(redactor.text(`psk ${spelling}.`), "psk [redacted: join token secret].", spelling);
  }
});

test("a private key printed whole in base64 on one line (no newline at its end, or one) is redacted", () => {
  const redactor = createBundleRedactor([{ name: "TLS private key", value: KEY }]);
  for (const pem of [KEY, KEY.trimEnd()]) {
    const encoded = Buffer.from(pem).toString("base64");
    assert.doesNotMatch(redactor.text(`key ${encoded}`), new RegExp(encoded.slice(20, 60).replace(/[+/]/g, "\\$&")), pem.length.toString());
  }
});

test("the install code with another separator between its groups (_ . / : a tab, an ANSI colour) is redacted", () => {
  const redactor = createBundleRedactor([{ name: "install code", value: "Y5CY-T6P4-T9ZD" }]);
  for (const spelling of ["Y5CY_T6P4_T9ZD", "Y5CY.T6P4.T9ZD", "Y5CY/T6P4/T9ZD", "Y5CY:T6P4:T9ZD", "Y5CY\tT6P4\tT9ZD", "Y5CY\u001b[31m-T6P4\u001b[0m-T9ZD", "Y5CY – T6P4 – T9ZD"]) {
    assert.equal(redactor.text(`code ${spelling};`), "code [redacted: install code];", JSON.stringify(spelling));
  }
});

test("a node.yaml printed in base64 wrapped at 76 or 64 columns (`base64 node.yaml`): no line keeps 12 or more characters of a secret", () => {
  const redactor = createBundleRedactor([{ name: "join token", value: TOKEN }, { name: "join token secret", value: SECRET }, { name: "password hash", value: HASH }]);
  for (const hostname of ["node-1", "node-01", "node-001", "node-0001"]) {
    const yaml = `mode: join\nhostname: ${hostname}\ncluster:\n  join_token: "${TOKEN}"\nadmin:\n  password_hash: '${HASH.replaceAll("'", "''")}'\n`;
    for (const width of [76, 64]) {
      const lines = Buffer.from(yaml).toString("base64").match(new RegExp(`.{1,${width}}`, "g"))!;
      const out = lines.map((line) => redactor.text(line));
      for (const [i, line] of out.entries()) {
        if (line.includes("[redacted")) continue;
        const decoded = Buffer.from(line, "base64").toString("latin1");
        for (const secret of [SECRET, HASH]) {
          for (let at = 0; at + 12 <= secret.length; at++) assert.ok(!decoded.includes(secret.slice(at, at + 12)), `${hostname}, ${width} columns, line ${i}: ${line}`);
        }
      }
    }
  }
});

test("a base64 spelling of a draft's secret is named after that secret, not 'node.yaml secret'", () => {
  const yaml = `mode: join\ncluster:\n  join_token: "${TOKEN}"\nadmin:\n  password_hash: '${HASH.replaceAll("'", "''")}'\n`;
  const redactor = createBundleRedactor(draftNamedSecrets({ source: "yaml", yaml, revision: 1, updatedAt: null }));
  assert.equal(redactor.text(b64(HASH)), "[redacted: password hash]");
  assert.equal(redactor.text(Buffer.from(TOKEN).toString("base64url")), "[redacted: join token]");
});

test("a public key in base64 is not taken for the TLS private key (their PEM lines share BEGIN and END)", () => {
  const redactor = createBundleRedactor([{ name: "TLS private key", value: KEY }]);
  const publicPem = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }).toString();
  const encoded = Buffer.from(`-----BEGIN PRIVATE KEY----- is not here; ${publicPem}`).toString("base64");
  assert.equal(redactor.text(encoded), encoded);
});

test("the TLS key file printed in base64 wrapped at 76 columns (`base64 tls.key`): no line keeps 12 or more characters of its body", () => {
  const redactor = createBundleRedactor([{ name: "TLS private key", value: KEY }]);
  const body = KEY.split("\n").filter((line) => line && !line.startsWith("-----")).join("\n");
  const lines = Buffer.from(KEY).toString("base64").match(/.{1,76}/g)!;
  for (const line of lines.map((l) => redactor.text(l))) {
    if (line.includes("[redacted")) continue;
    const decoded = Buffer.from(line, "base64").toString("latin1");
    for (let at = 0; at + 12 <= body.length; at++) assert.ok(!decoded.includes(body.slice(at, at + 12)), line);
  }
});

test("the install code as typed with blanks or dashes and then URL-encoded (%20, %2D, %09) is redacted", () => {
  const redactor = createBundleRedactor([{ name: "install code", value: "Y5CY-T6P4-T9ZD" }]);
  for (const spelling of ["Y5CY%20T6P4%20T9ZD", "y5cy%20t6p4%20t9zd", "Y5CY%2DT6P4%2dT9ZD", "Y5CY%20%20T6P4%09T9ZD", "Y5CY%2520T6P4%2520T9ZD"]) {
    assert.equal(redactor.text(`GET /x?code=${spelling}&y=1`), "GET /x?code=[redacted: install code]&y=1", spelling);
  }
});

test("the install code without its dashes or in lower case, in base64 (alone or inside a longer text), is redacted: the API takes each as the code", () => {
  const redactor = createBundleRedactor([{ name: "install code", value: "KQZT-7MWP-X4RD-9BNC" }]);
  for (const spelling of ["KQZT7MWPX4RD9BNC", "kqzt-7mwp-x4rd-9bnc", "kqzt7mwpx4rd9bnc"]) {
    for (const text of [b64(spelling), b64(`the code is ${spelling}\n`)]) {
      const out = redactor.text(`echo ${text}`);
      assert.match(out, /\[redacted: install code\]/, `${spelling} in ${text}`);
      assert.ok(!out.includes(b64(spelling).slice(4, 16)), out);
    }
  }
});

test("the install code with a terminal's colour codes between its characters, raw or JSON-escaped as an event line holds them, dashes coloured too, is redacted", () => {
  const code = "KQZT-7MWP-X4RD-9BNC";
  const redactor = createBundleRedactor([{ name: "install code", value: code }]);
  const each = [...code].map((c) => `\u001b[1m${c}\u001b[0m`).join("");
  const tinted = [...code.replaceAll("-", "")].map((c) => `\u001b[38;5;196m${c}`).join("");
  for (const coloured of [each, tinted]) {
    for (const text of [coloured, JSON.stringify({ type: "firstboot.output", line: coloured })]) {
      const out = redactor.text(text);
      assert.match(out, /\[redacted: install code\]/, JSON.stringify(text));
      assert.ok(![..."QZT7MWPX4RD9BN"].every((c) => out.includes(c)), JSON.stringify(out));
    }
  }
});

test("a store kept aside that is no JSON, its join token split over two lines: the token whole and its secret part alone are redacted wherever else they show", () => {
  const broken = `{\n  "draft": {"source": "structured", "config": {"cluster": {"joinToken": "${TOKEN.slice(0, 40)}\n    ${TOKEN.slice(40)}"}}}\n`;
  const redactor = createBundleRedactor(secretsInBrokenStore(broken));
  assert.equal(redactor.text(broken).includes(TOKEN.slice(48)), false, "the store itself");
  assert.equal(redactor.text(`join ${TOKEN} now`), "join [redacted: join token] now");
  assert.equal(redactor.text(`secret=${SECRET.slice(0, 30)}\n${SECRET.slice(30)}`).includes(SECRET.slice(0, 20)), false, "its secret part, split elsewhere");
});

test("a store that does not parse: its join token's secret part, printed alone elsewhere, is redacted too", () => {
  const redactor = createBundleRedactor(secretsInBrokenStore(`{"draft": {"config": {"cluster": {"joinToken": "${TOKEN}"}}`));
  assert.equal(redactor.text(`export JOIN_SECRET=${SECRET}`), "export JOIN_SECRET=[redacted: join token secret]");
});

test("the install code with a tab, a newline or a CR between its groups, JSON-escaped as an event line or a store holds them (`\\t`, `\\n`), is redacted", () => {
  const redactor = createBundleRedactor([{ name: "install code", value: "Y5CY-T6P4-T9ZD" }]);
  for (const separator of ["\t", "\n", "\r\n", " \t", "\n\n"]) {
    const line = JSON.stringify({ type: "firstboot.output", line: `code ${["Y5CY", "T6P4", "T9ZD"].join(separator)};` });
    const out = redactor.text(line);
    assert.equal(out, JSON.stringify({ type: "firstboot.output", line: "code [redacted: install code];" }), JSON.stringify(separator));
  }
});

test("a secret folded over lines at any width (`fold -w 10`, each line an event): no line keeps 8 or more of its characters", () => {
  const redactor = createBundleRedactor([
    { name: "join token", value: TOKEN },
    { name: "join token secret", value: SECRET },
    { name: "password hash", value: HASH },
  ]);
  for (const secret of [SECRET, HASH]) {
    for (const width of [10, 14, 20, 30]) {
      for (const before of ["", "join_token: ", "x"]) {
        const text = `${before}${secret}`;
        for (let at = 0; at < text.length; at += width) {
          const line = JSON.stringify({ type: "firstboot.output", line: text.slice(at, at + width) });
          const out = JSON.parse(redactor.text(line)) as { line: string };
          for (let i = 0; i + 8 <= out.line.length; i++) assert.ok(!secret.includes(out.line.slice(i, i + 8)), `${JSON.stringify(out.line)} (width ${width})`);
        }
      }
    }
  }
});

test("the TLS key URL-encoded (curl --data-urlencode key@tls.key, echoed): no line of its body is kept, one with a + or / (%2B, %2F) too", () => {
  const redactor = createBundleRedactor([{ name: "TLS private key", value: KEY }]);
  const body = KEY.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));
  for (const text of [`key=${encodeURIComponent(KEY)}`, JSON.stringify({ line: `POST key=${encodeURIComponent(KEY)}` }), ...body.map((line) => `line ${encodeURIComponent(line)}`)]) {
    const out = redactor.text(text);
    for (const line of body) {
      const encoded = encodeURIComponent(line);
      for (let i = 0; i + 16 <= encoded.length; i++) assert.ok(!out.includes(encoded.slice(i, i + 16)), `${JSON.stringify(out)} keeps ${encoded.slice(i, i + 16)}`);
    }
  }
});
