import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { analyzeYamlDraft, renderNodeYaml } from "../../../core/config/index.ts";
import { assertErrors, type Expected } from "./expect-errors.ts";
import { CTX, ED25519_KEY, HA_INIT, HA_JOIN, SINGLE_NODE } from "./fixtures.ts";

const VALID = `mode: ha-init
hostname: node-01
network:
  interface: eno1
  address: 10.20.0.11/24
  gateway: 10.20.0.1
  vip: 10.20.0.10
  floating_ip_cidrs:
    - 203.0.113.0/24
storage:
  osd_devices: [/dev/sdb]
cluster:
  name: rack-a
admin:
  ssh_authorized_keys:
    - ${ED25519_KEY}
`;

/** VALID with one line (1-based) replaced. */
function withLine(line: number, text: string): string {
  const lines = VALID.split("\n");
  lines[line - 1] = text;
  return lines.join("\n");
}

const CASES: Array<{ name: string; text: string; expected: Expected[] }> = [
  { name: "valid ha-init node.yaml", text: VALID, expected: [] },
  { name: "install mode name instead of the node.yaml one", text: withLine(1, "mode: hyperconverged-init"), expected: [["mode", /"hyperconverged-init" is not one of single-node, ha-init, join, control-plane/, 1, 7]] },
  { name: "camelCase key in node.yaml", text: withLine(8, "  floatingIpCidrs:"), expected: [["network.floatingIpCidrs", /network.floatingIpCidrs is not a known key/, 8, 3]] },
  { name: "unknown top-level key", text: `${VALID}extra: 1\n`, expected: [["extra", /extra is not a known key/, 17, 1]] },
  { name: "empty value", text: withLine(6, "  gateway:"), expected: [["network.gateway", /network.gateway is empty/, 6, 3]] },
  { name: "number where a string belongs", text: withLine(2, "hostname: 1234"), expected: [["hostname", /hostname must be a string, not the number 1234/, 2, 11]] },
  { name: "missing required key points at its parent", text: withLine(6, "  dns: [10.20.0.2]"), expected: [["network.gateway", /network.gateway is required/, 3, 1]] },
  { name: "missing top-level key points at line 1", text: withLine(2, "# no hostname"), expected: [["hostname", /hostname is required/, 1, 1]] },
  { name: "missing mode-specific key", text: withLine(7, "  # vip to come"), expected: [["network.vip", /network.vip is required for mode ha-init/, 3, 1]] },
  { name: "section with nothing under it", text: withLine(13, ""), expected: [["cluster", /cluster is empty/, 12, 1]] },
  { name: "osd list missing for ha-init", text: withLine(11, "  osd_devices: []"), expected: [["storage.osd_devices", /storage.osd_devices needs at least one disk for mode ha-init/, 11, 16]] },
  { name: "bad address", text: withLine(5, "  address: 10.20.0.11/33"), expected: [["network.address", /prefix 33 is out of range for IPv4/, 5, 12]] },
  { name: "gateway outside the subnet", text: withLine(6, "  gateway: 10.30.0.1"), expected: [["network.gateway", /outside the management subnet 10.20.0.0\/24 \(from network.address\)/, 6, 12]] },
  {
    name: "overlapping floating ranges name node.yaml keys",
    text: withLine(9, "    - 203.0.113.0/24\n    - 203.0.113.0/25"),
    expected: [["network.floating_ip_cidrs[1]", /203.0.113.0\/25 overlaps network.floating_ip_cidrs\[0\] \(203.0.113.0\/24\)/, 10, 7]],
  },
  { name: "disk in use in a flow list", text: withLine(11, "  osd_devices: [/dev/sdb, /dev/sda]"), expected: [["storage.osd_devices[1]", /\/dev\/sda is in use \(mounted at \/\)/, 11, 27]] },
  { name: "interface missing on the host", text: withLine(4, "  interface: eth0"), expected: [["network.interface", /eth0 is not a network interface on this host/, 4, 14]] },
  { name: "ssh key list item", text: withLine(16, "    - not-a-key"), expected: [["admin.ssh_authorized_keys[0]", /admin.ssh_authorized_keys\[0\] does not start with an SSH key type/, 16, 7]] },
  {
    name: "several problems, sorted by position",
    text: withLine(2, "hostname: Node_01").replace("gateway: 10.20.0.1", "gatway: 10.20.0.1"),
    expected: [
      ["hostname", /is not a valid RFC 1123 hostname: it contains "_"/, 2, 11],
      ["network.gatway", /not a known key/, 6, 3],
      ["network.gateway", /network.gateway is required/, 3, 1],
    ],
  },
  { name: "login missing speaks node.yaml keys", text: VALID.replace(/admin:[\s\S]*$/, ""), expected: [["admin", /set admin.ssh_authorized_keys \(at least one key\) or admin.password_hash/, 1, 1]] },
  { name: "mode refused by the release", text: withLine(1, "mode: control-plane"), expected: [["mode", /mode control-plane is not available: the disaggregated profile is a preview/, 1, 7]] },
  { name: "syntax error", text: withLine(11, "  osd_devices: [/dev/sdb"), expected: [["", /YAML syntax error/, 12, 1]] },
  // It was "node.yaml must be a mapping of keys (key: value lines), not a single value": there is no value.
  { name: "only a --- line and a comment: empty, as a file of comments is", text: "---\n# to be written\n", expected: [["", /^node\.yaml is empty: /, 1, 1]] },
  { name: "duplicate key", text: withLine(7, "  gateway: 10.20.0.2"), expected: [["", /key network.gateway appears twice/, 7, 3], ["network.vip", /network.vip is required for mode ha-init/, 3, 1]] },
  {
    name: "a duplicate key and other problems: every one at once (SPEC: every problem is reported at once)",
    text: withLine(2, "hostname: Node_01").replace("  gateway: 10.20.0.1", "  gateway: 10.20.0.1\n  gateway: 10.20.0.1").replace("admin:", "admin:\n  password_hash: hunter2"),
    expected: [
      ["hostname", /is not a valid RFC 1123 hostname: it contains "_"/, 2, 11],
      ["", /key network.gateway appears twice/, 7, 3],
      ["admin.password_hash", /.+/, 16, 18],
    ],
  },
];

describe("analyzeYamlDraft", () => {
  for (const { name, text, expected } of CASES) {
    it(name, () => assertErrors(analyzeYamlDraft(text, CTX).errors, expected));
  }

  it("sorts errors by position", () => {
    const errors = analyzeYamlDraft(CASES.find((c) => c.name.startsWith("several"))!.text, CTX).errors;
    assert.deepEqual(
      errors.map((e) => [e.line, e.column]),
      [[2, 11], [3, 1], [6, 3]],
    );
  });

  it("reads mode, hostname and the structured draft", () => {
    const analysis = analyzeYamlDraft(VALID, CTX);
    assert.equal(analysis.parsed, true);
    assert.equal(analysis.mode, "hyperconverged-init");
    assert.equal(analysis.hostname, "node-01");
    assert.equal(analysis.draft?.mode, "hyperconverged-init");
    assert.deepEqual(analysis.draft?.network?.floatingIpCidrs, ["203.0.113.0/24"]);
  });

  it("has no mode when the text does not parse or names an unknown mode", () => {
    const broken = analyzeYamlDraft("mode: [", CTX);
    assert.equal(broken.parsed, false);
    assert.equal(broken.mode, undefined);
    assert.equal(analyzeYamlDraft("mode: hyperconverged-init\n", CTX).mode, undefined);
  });

  it("accepts what renderNodeYaml writes", () => {
    for (const draft of [SINGLE_NODE, HA_INIT, HA_JOIN]) assert.deepEqual(analyzeYamlDraft(renderNodeYaml(draft), CTX).errors, []);
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.json().map((json) => json.replace(/[{},]/g, "\n  "))), (text) => {
        const analysis = analyzeYamlDraft(text, CTX);
        assert.ok(Array.isArray(analysis.errors));
        for (const error of analysis.errors) {
          assert.equal(typeof error.message, "string");
          assert.ok(typeof error.line === "number" && error.line >= 1 && typeof error.column === "number" && error.column >= 1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("a pasted control, C1 or bidi character, or a huge key, alias or value, reaches no message or hint raw or whole: each is short and printable", () => {
    const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]/;
    const long = (c: string) => c.repeat(100_000);
    const pasted: Record<string, string> = {
      "a bidi override in a value": 'mode: single-node\nhostname: "a\u202eb"\n',
      "an 8-bit CSI in a value": 'mode: single-node\nhostname: "a\\x9b2Jb"\n',
      "a value with spaces and a bidi override": 'mode: single-node\nnetwork:\n  gateway: " 10.0.0.1\u202e "\n',
      "a bidi override in a time zone": 'mode: single-node\ntimezone: "Europe/Paris\u202e"\n',
      "a bidi override in a key": "mode: single-node\nnetwork:\n  gate\u202eway: 10.0.0.1\n",
      "a key with a C1 character twice": 'mode: single-node\n"ho\\x9bst": a\n"ho\\x9bst": b\n',
      "a key with a bidi override twice": "mode: single-node\nho\u202est: a\nho\u202est: b\n",
      "a long key twice": `mode: single-node\n${"k".repeat(1000)}: 1\n${"k".repeat(1000)}: 2\n`,
      "an alias to no anchor, with a bidi override": "mode: single-node\nhostname: *a\u202eb\n",
      "a 100 000-character alias to no anchor": `mode: single-node\nhostname: *${long("a")}\n`,
      "a 100 000-character string where a list belongs": `mode: single-node\nnetwork:\n  dns: "${long("1")}"\n`,
      "a bad escape before a bidi override": 'mode: single-node\nhostname: "a\\\u202e\u009bb"\n',
      "an unknown directive with a bidi override": "%FOO\u202e bar\n---\nmode: x\n",
    };
    for (const [name, text] of Object.entries(pasted)) {
      const errors = analyzeYamlDraft(text, CTX).errors;
      assert.ok(errors.length > 0, name);
      for (const { message, hint } of errors) {
        for (const said of [message, hint ?? ""]) {
          assert.doesNotMatch(said, RAW, `${name}: ${JSON.stringify(said)}`);
          assert.ok(said.length <= 400, `${name}: ${said.length} characters: ${said.slice(0, 120)}…`);
        }
      }
    }
  });

  // Each was an error of its own (3,000 lines: 3,003 errors, 425 KB, 2 s, the document walked once per key).
  it("a key pasted 3,000 times: 50 said, one error sums up the rest, as unknown keys are", () => {
    const text = `mode: single-node\n${"hostname: a\n".repeat(3000)}`;
    const twice = analyzeYamlDraft(text, CTX).errors.filter((e) => /twice/.test(e.message));
    assert.equal(twice.length, 51);
    assert.deepEqual(twice.slice(0, 2).map((e) => [e.message, e.line, e.column]), [
      ["key hostname appears twice in the same mapping; YAML would keep only one, so remove the other", 3, 1],
      ["key hostname appears twice in the same mapping; YAML would keep only one, so remove the other", 4, 1],
    ]);
    assert.deepEqual([twice[50]!.message, twice[50]!.line, twice[50]!.column], ["and 2949 more keys appear twice in their mapping", 53, 1]);
  });

  it("never throws on mangled node.yaml text", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: VALID.length }), fc.integer({ min: 0, max: 40 }), fc.string({ maxLength: 8 }), (at, cut, insert) => {
        const text = VALID.slice(0, at) + insert + VALID.slice(at + cut);
        assert.ok(Array.isArray(analyzeYamlDraft(text, CTX).errors));
      }),
      { numRuns: 500 },
    );
  });
});
