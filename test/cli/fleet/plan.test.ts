import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadPlan } from "../../../cli/fleet/plan.ts";
import { formatProblem } from "../../../cli/fleet/plan-yaml.ts";
import { formatPath } from "../../../core/config/paths.ts";
import { EXAMPLE_PLAN } from "../../../cli/fleet/usage.ts";
import { VALID_DRAFT } from "../../helpers/fixtures.ts";
import { tempDir } from "../../helpers/installer.ts";

const PIN = "ab".repeat(32);
const KEY = VALID_DRAFT.admin.sshAuthorizedKeys[0]!;

/** A valid plan; each line is one place a case edits. */
const PLAN = `cluster:
  name: lab-1
  vip: 10.20.0.10
  common:
    timezone: UTC
    network: { gateway: 10.20.0.1, dns: [10.20.0.2], floatingIpCidrs: [203.0.113.0/24] }
    admin: { sshAuthorizedKeys: ["${KEY}"] }
nodes:
  - name: node-01
    installer: https://10.20.0.11:9443
    fingerprint: "${PIN.toUpperCase().match(/../g)!.join(":")}"
    code: env:NODE01_CODE
    role: init
    config: { network: { interface: eno1, address: 10.20.0.11/24 }, storage: { osdDevices: [/dev/sdb] } }
  - name: node-02
    installer: https://10.20.0.12:9443
    fingerprint: ${PIN}
    code: file:codes/node-02
    role: join
    config: { network: { interface: eno1, address: 10.20.0.12/24 }, storage: { osdDevices: [/dev/sdb] } }
  - name: node-03
    installer: https://10.20.0.13:9443
    fingerprint: ${PIN}
    code: K7QX-M2PD-R4TV
    role: join
    config: { network: { interface: eno1, address: 10.20.0.13/24 }, storage: { osdDevices: [/dev/sdb] } }
`;

const ENV = { NODE01_CODE: "CODE-0001" };

async function load(text: string, env: NodeJS.ProcessEnv = ENV) {
  const folder = await tempDir("stratum-plan-");
  await mkdir(join(folder, "codes"));
  await writeFile(join(folder, "codes/node-02"), "CODE-0002\n");
  const file = join(folder, "plan.yaml");
  await writeFile(file, text);
  return { file, result: await loadPlan(file, env) };
}

/** `PLAN:LINE:COL path: message` lines, the file name cut off. */
async function problemsOf(text: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const { file, result } = await load(text, env);
  assert.equal(result.ok, false, "the plan should have problems");
  return result.ok ? [] : result.problems.map((p) => formatProblem(file, p).slice(file.length + 1));
}

const edit = (from: string | RegExp, to: string) => (text: string) => {
  assert.ok(typeof from === "string" ? text.includes(from) : from.test(text), `the plan has ${String(from)}`);
  return text.replace(from, to);
};

interface Case {
  name: string;
  change: (text: string) => string;
  env?: NodeJS.ProcessEnv;
  /** Each expected problem: its start (`LINE:COL path`, or a path alone) and a pattern of its message. */
  expected: Array<[string, RegExp]>;
}

const CASES: Case[] = [
  { name: "YAML that does not parse", change: edit("  vip: 10.20.0.10", "  vip: [10.20.0.10"), expected: [["4:3 (plan)", /YAML syntax error: Flow sequence/]] },
  { name: "a key twice", change: edit("  vip: 10.20.0.10", "  vip: 10.20.0.10\n  vip: 10.20.0.9"), expected: [["4:3", /: key cluster\.vip appears twice in the same mapping; YAML would keep only one, so remove the other/]] },
  // The parser's stack gave out: "YAML: Maximum call stack size exceeded", at no useful place.
  { name: "flow lists nested 5,000 deep", change: edit("  vip: 10.20.0.10", `  vip: 10.20.0.10\n  x: ${"[".repeat(5000)}${"]".repeat(5000)}`), expected: [["4:42 (plan)", /^4:42 \(plan\): the plan nests deeper than 36 levels$/]] },
  { name: "block maps nested 1,200 deep", change: edit("  vip: 10.20.0.10", `  vip: 10.20.0.10\n${Array.from({ length: 1200 }, (_, i) => `${" ".repeat(i + 2)}k:`).join("\n")}`), expected: [["203:1 (plan)", /the plan nests too deeply here .*at most 36 levels/]] },
  // Each alias stands for a list of ten of the one before: a billion values from a few lines ("billion laughs").
  {
    name: "aliases that stand for a billion values, named where they pass the bound",
    change: edit("  vip: 10.20.0.10", `  vip: 10.20.0.10\n  x0: &a0 [a, a, a, a, a, a, a, a, a, a]\n${Array.from({ length: 8 }, (_, i) => `  x${i + 1}: &a${i + 1} [${Array.from({ length: 10 }, () => `*a${i}`).join(", ")}]`).join("\n")}`),
    expected: [["9:", /^9:\d+ \(plan\): the plan's aliases \(\*name\) stand for more than 1000000 values: write the values out/]],
  },
  { name: "an alias to no anchor, named where it is", change: edit("storage: { osdDevices: [/dev/sdb] } }\n  - name: node-03", "storage: *disks }\n  - name: node-03"), expected: [["20:78 (plan)", /alias \*disks refers to no anchor: &disks must be set before it/]] },
  {
    name: "an alias to no anchor with a 100,000-character name pasted in: said short, not twice whole",
    change: edit("storage: { osdDevices: [/dev/sdb] } }\n  - name: node-03", `storage: *${"d".repeat(100_000)} }\n  - name: node-03`),
    expected: [["20:78 (plan)", /^20:78 \(plan\): alias "\*d{63}…" refers to no anchor: "&d{63}…" must be set before it$/]],
  },
  // The yaml library's words were "Source contains multiple documents; please use YAML.parseAllDocuments()".
  { name: "a second document (a plan pasted twice)", change: (t) => `${t}---\n${t}`, expected: [["27:1 (plan)", /^27:1 \(plan\): the plan holds more than one YAML document \(a second one starts here after ---\): keep one$/]] },
  // The path was printed whole: a 100,000-character key made a 100 KB line (a 500 KB plan's key, a 500 KB line).
  {
    name: "an unknown key 100,000 characters long: its path cut short in the line, as its message quotes it",
    change: () => `cluster: { name: lab-1, vip: 10.20.0.10, "${"k".repeat(100_000)}": 1 }\nnodes: []\n`,
    expected: [
      ["1:42 cluster.k", /^1:42 cluster\.k{200,256} … \[cut 97\.\d KiB\]: "k{64}…" is not a known key \(known keys in cluster: [\w, ]+\)$/],
      ["2:8 nodes", /nodes is empty/],
    ],
  },
  { name: "not a mapping", change: () => "- a\n- b\n", expected: [["1:1 (plan)", /must be a mapping with cluster: and nodes:, not a list/]] },
  { name: "no nodes", change: (t) => t.slice(0, t.indexOf("nodes:")), expected: [["1:1 nodes", /nodes is required: the list of nodes/]] },
  { name: "an unknown top-level key", change: edit("nodes:", "nodez: []\nnodes:"), expected: [["8:1 nodez", /"?nodez"? is not a known key/]] },
  { name: "a typo in a node's key, with the nearest", change: edit("    installer: https://10.20.0.12:9443", "    instaler: https://10.20.0.12:9443"), expected: [["15:5 nodes[1].installer", /installer is required/], ["16:5 nodes[1].instaler", /instaler is not a known key \(did you mean installer\?\)/]] },
  { name: "a typo inside a node's config", change: edit("address: 10.20.0.13/24", "adress: 10.20.0.13/24"), expected: [["26:43 nodes[2].config.network.adress", /adress is not a known key \(did you mean address\?\)/]] },
  { name: "a key the fleet sets, in config", change: edit("    config: { network: { interface: eno1, address: 10.20.0.12/24 }", "    config: { hostname: x, network: { interface: eno1, address: 10.20.0.12/24 }"), expected: [["20:15 nodes[1].config.hostname", /hostname is set by the fleet.*\(the node's name is its hostname\)/]] },
  { name: "network.vip in common", change: edit("gateway: 10.20.0.1,", "gateway: 10.20.0.1, vip: 10.20.0.9,"), expected: [["6:36 cluster.common.network.vip", /vip is set by the fleet.*cluster\.vip/]] },
  { name: "a mode in common", change: edit("    timezone: UTC", "    timezone: UTC\n    mode: single-node"), expected: [["6:5 cluster.common.mode", /mode is set by the fleet.*role decides/]] },
  { name: "a role that is neither", change: edit("    role: join\n    config: { network: { interface: eno1, address: 10.20.0.13", "    role: joiner\n    config: { network: { interface: eno1, address: 10.20.0.13"), expected: [["25:11 nodes[2].role", /role "joiner" is not one of init, join/]] },
  { name: "a node without a role", change: edit("    role: join\n    config: { network: { interface: eno1, address: 10.20.0.13", "    config: { network: { interface: eno1, address: 10.20.0.13"), expected: [["21:5 nodes[2].role", /^21:5 nodes\[2\]\.role: role is required: init or join$/]] },
  { name: "a number where text goes", change: edit("  name: lab-1", "  name: 1234"), expected: [["2:9 cluster.name", /name must be a string, not 1234 \(a number\) \(put it in quotes\)/]] },
  { name: "no init", change: edit("role: init", "role: join"), expected: [["9:3 nodes", /no node has role: init/]] },
  {
    name: "the init without its fingerprint: what is missing, where; never \"no node has role: init\"",
    change: edit(/    fingerprint: "[0-9A-F:]+"\n/, ""),
    expected: [["9:5 nodes[0].fingerprint", /fingerprint is required/]],
  },
  { name: "the init without its installer", change: edit("    installer: https://10.20.0.11:9443\n", ""), expected: [["9:5 nodes[0].installer", /installer is required/]] },
  { name: "the init without its code", change: edit("    code: env:NODE01_CODE\n", ""), expected: [["9:5 nodes[0].code", /code is required/]] },
  { name: "two inits", change: edit("    role: join\n    config: { network: { interface: eno1, address: 10.20.0.13", "    role: init\n    config: { network: { interface: eno1, address: 10.20.0.13"), expected: [["25:11 nodes[2].role", /nodes\[2\] \(node-03\) is a second init \(nodes\[0\] \(node-01\) is one\)/]] },
  { name: "a name twice", change: edit("  - name: node-03", "  - name: node-02"), expected: [["21:11 nodes[2].name", /node-02 is also nodes\[1\] \(node-02\)'s name/]] },
  { name: "a name that is no hostname", change: edit("  - name: node-03", "  - name: node_03"), expected: [["21:11 nodes[2].name", /hostname/]] },
  { name: "an installer twice", change: edit("https://10.20.0.13:9443", "https://10.20.0.12:9443/"), expected: [["22:16 nodes[2].installer", /is also nodes\[1\] \(node-02\)'s installer/]] },
  { name: "an installer that is not https", change: edit("https://10.20.0.13:9443", "http://10.20.0.13:9443"), expected: [["22:16 nodes[2].installer", /is not https:\/\//]] },
  { name: "a fingerprint that is no SHA-256", change: edit(`    fingerprint: ${PIN}\n    code: K7QX`, "    fingerprint: 9F:86:D0\n    code: K7QX"), expected: [["23:18 nodes[2].fingerprint", /not a SHA-256/]] },
  { name: "a code from an unset variable", change: (t) => t, env: {}, expected: [["12:11 nodes[0].code", /environment variable NODE01_CODE is not set/]] },
  { name: "a code from a missing file", change: edit("file:codes/node-02", "file:codes/nope"), expected: [["18:11 nodes[1].code", /cannot read .*codes\/nope/]] },
  { name: "two nodes at one address", change: edit("address: 10.20.0.13/24", "address: 10.20.0.12/24"), expected: [["26:52 nodes[2].config.network.address", /10\.20\.0\.12\/24 is also nodes\[1\] \(node-02\)'s address/]] },
  {
    name: "a node in another subnet, with another gateway",
    change: edit("address: 10.20.0.13/24 }", "address: 10.30.0.13/24, gateway: 10.30.0.1 }"),
    expected: [
      ["3:8 cluster.vip", /network\.vip 10\.20\.0\.10 is outside the management subnet 10\.30\.0\.0\/24.*\(for node-03\)/],
      ["26:52 nodes[2].config.network.address", /10\.30\.0\.13\/24 is in 10\.30\.0\.0\/24, but nodes\[0\] \(node-01\) is in 10\.20\.0\.0\/24/],
      ["26:76 nodes[2].config.network.gateway", /10\.30\.0\.1 differs from nodes\[0\] \(node-01\)'s gateway 10\.20\.0\.1/],
    ],
  },
  {
    name: "other floating ranges on one node",
    change: edit("address: 10.20.0.12/24 }", "address: 10.20.0.12/24, floatingIpCidrs: [198.51.100.0/24] }"),
    expected: [["20:84 nodes[1].config.network.floatingIpCidrs", /has floating ranges 198\.51\.100\.0\/24, nodes\[0\] \(node-01\) 203\.0\.113\.0\/24/]],
  },
  {
    name: "the vip is a node's address (and so the joins' join address)",
    change: edit("  vip: 10.20.0.10", "  vip: 10.20.0.12"),
    expected: [
      ["3:8 cluster.vip", /network\.vip 10\.20\.0\.12 is the node's own address.*\(for node-02\)/],
      ["3:8 cluster.vip", /cluster\.joinAddress: 10\.20\.0\.12 is this node's own address.*\(for node-02\)/],
    ],
  },
  { name: "a bad DNS server in common: once, not once per node", change: edit("dns: [10.20.0.2]", "dns: [10.20.0.2, nope]"), expected: [["6:53 cluster.common.network.dns[1]", /nope is not an IP address/]] },
  { name: "a required field nobody sets", change: edit("{ interface: eno1, address: 10.20.0.13/24 }", "{ interface: eno1 }"), expected: [["26:15 nodes[2].config.network.address", /network\.address is required/]] },
  { name: "a joinAddress that is no address", change: edit("  vip: 10.20.0.10", "  vip: 10.20.0.10\n  joinAddress: 10.20.0.10:99999"), expected: [["4:16 cluster.joinAddress", /port "99999" is not a port number.*\(for node-02, node-03\)/]] },
  {
    name: "every problem at once",
    change: (t) => edit("role: init", "role: join")(edit("https://10.20.0.13:9443", "http://x")(edit("dns: [10.20.0.2]", "dns: [nope]")(t))),
    expected: [
      ["6:42 cluster.common.network.dns[0]", /nope/],
      ["9:3 nodes", /no node has role: init/],
      ["22:16 nodes[2].installer", /not https/],
    ],
  },
];

describe("fleet plan: offline checks (SPEC §10.1)", () => {
  it("the plan above is valid: three nodes, each with its composed draft", async () => {
    const { result } = await load(PLAN);
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    const { nodes } = result.loaded;
    assert.deepEqual(nodes.map((n) => [n.name, n.role, n.access.url.href, n.access.pin, n.access.code]), [
      ["node-01", "init", "https://10.20.0.11:9443/", PIN, "CODE-0001"],
      ["node-02", "join", "https://10.20.0.12:9443/", PIN, "CODE-0002"],
      ["node-03", "join", "https://10.20.0.13:9443/", PIN, "K7QX-M2PD-R4TV"],
    ]);
    assert.deepEqual(nodes[0]!.draft(), {
      mode: "hyperconverged-init",
      hostname: "node-01",
      timezone: "UTC",
      network: { gateway: "10.20.0.1", dns: ["10.20.0.2"], floatingIpCidrs: ["203.0.113.0/24"], interface: "eno1", address: "10.20.0.11/24", vip: "10.20.0.10" },
      admin: { sshAuthorizedKeys: [KEY] },
      storage: { osdDevices: ["/dev/sdb"] },
      cluster: { name: "lab-1" },
    });
    assert.deepEqual(nodes[1]!.draft("STRATUM1:token").cluster, { name: "lab-1", joinAddress: "10.20.0.10", joinToken: "STRATUM1:token" });
  });

  it("a node's config wins over common key by key, and a list replaces a list", async () => {
    const { result } = await load(edit("address: 10.20.0.12/24 }", "address: 10.20.0.12/24, dns: [10.20.0.3] }")(PLAN));
    assert.ok(result.ok);
    assert.deepEqual(result.loaded.nodes[1]!.draft().network, {
      gateway: "10.20.0.1",
      dns: ["10.20.0.3"],
      floatingIpCidrs: ["203.0.113.0/24"],
      interface: "eno1",
      address: "10.20.0.12/24",
      vip: "10.20.0.10",
    });
  });

  it("joinAddress, when given, is where the joins reach the cluster", async () => {
    const { result } = await load(edit("  vip: 10.20.0.10", "  vip: 10.20.0.10\n  joinAddress: 127.0.0.1:8443")(PLAN));
    assert.ok(result.ok);
    assert.equal(result.loaded.nodes[2]!.draft().cluster?.joinAddress, "127.0.0.1:8443");
  });

  it("a misspelt config: key is the one problem of that node's config, not the problems of a node with none (which blamed cluster.common)", async () => {
    const lines = await problemsOf(edit("    role: join\n    config: { network: { interface: eno1, address: 10.20.0.13", "    role: join\n    confg: { network: { interface: eno1, address: 10.20.0.13")(PLAN), ENV);
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0]!, /nodes\[2\]\.confg: confg is not a known key \(did you mean config\?\)/);
  });

  it("a node with a role that is neither and an unknown key still has its other keys checked: every problem at once (SPEC §10.1)", async () => {
    const plan = [
      edit("  - name: node-03", "  - name: node-02"),
      edit("    role: join\n    config: { network: { interface: eno1, address: 10.20.0.13", "    role: joiner\n    colour: red\n    config: { network: { interface: eno1, address: 10.20.0.13"),
      edit(`    fingerprint: ${PIN}\n    code: K7QX`, "    fingerprint: 9F:86:D0\n    code: K7QX"),
    ].reduce((text, change) => change(text), PLAN);
    const lines = await problemsOf(plan, ENV);
    for (const expected of [/nodes\[2\]\.role: role "joiner" is not one of init, join/, /nodes\[2\]\.colour: colour is not a known key/, /nodes\[2\]\.name: node-02 is also nodes\[1\] \(node-02\)'s name/, /nodes\[2\]\.fingerprint: .*not a SHA-256/]) {
      assert.ok(lines.some((line) => expected.test(line)), `${expected} in:\n${lines.join("\n")}`);
    }
  });

  it("keys named as Object's own members (__proto__, constructor, toString) are unknown keys, said as any other (colour): not 'set by the fleet', and no crash", async () => {
    for (const key of ["colour", "__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const { file, result } = await load(edit("    timezone: UTC", `    timezone: UTC\n    ${key}: { x: 1 }`)(edit("    role: init\n    config: { ", `    role: init\n    config: { ${key}: 1, `)(PLAN)));
      assert.equal(result.ok, false, key);
      const problems = result.ok ? [] : result.problems;
      assert.deepEqual(problems.map((p) => [p.rule, formatPath(p.path), typeof p.hint]), [
        ["draft", `cluster.common.${key}`, "string"],
        ["draft", `nodes[0].config.${key}`, "string"],
      ], key);
      for (const p of problems) assert.match(formatProblem(file, p), new RegExp(`${key} is not a known key \\(known keys in `), key);
    }
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const lines = await problemsOf(c.change(PLAN), c.env ?? ENV);
      assert.equal(lines.length, c.expected.length, lines.join("\n"));
      c.expected.forEach(([start, pattern], i) => {
        assert.ok(lines[i]!.startsWith(start), `${lines[i]} starts with ${start}`);
        assert.match(lines[i]!, pattern);
      });
    });
  }

  // Each message naming another node (or a value another node has) gave its name whole: two nodes with one
  // 100,000-character name made lines of 16 KB, cut only by the output's own bound.
  it("a node name, installer or gateway pasted 100,000 characters long is named cut short wherever another node's problem names it", async () => {
    const name = "n".repeat(100_000);
    const gateway = "g".repeat(100_000);
    const text = edit("  - name: node-03", `  - name: ${name}`)(edit("  - name: node-02", `  - name: ${name}`)(edit("address: 10.20.0.13/24 }", `address: 10.20.0.13/24, gateway: ${gateway} }`)(PLAN)));
    const lines = await problemsOf(text);
    for (const line of lines) assert.ok(line.length < 600, `${line.length} characters: ${line.slice(0, 160)}…`);
    const cut = `"${"n".repeat(64)}…"`;
    assert.ok(lines.includes(`21:11 nodes[2].name: ${cut} is also nodes[1] (${cut})'s name`), lines.map((l) => l.slice(0, 200)).join("\n"));
  });

  // Each was said whole: 100 KB problems, 16 KB lines once the output cut them.
  it("an installer, a code's variable or file, or a role pasted 100,000 characters long is named cut short in its problem", async () => {
    const x = "x".repeat(100_000);
    const text = [
      edit("https://10.20.0.11:9443", `http://10.20.0.11:9443/${x}`),
      edit("https://10.20.0.13:9443", x),
      edit("env:NODE01_CODE", `env:${x}`),
      edit("file:codes/node-02", `file:codes/${x}`),
      edit("    role: join\n    config: { network: { interface: eno1, address: 10.20.0.13", `    role: ${x}\n    config: { network: { interface: eno1, address: 10.20.0.13`),
    ].reduce((t, change) => change(t), PLAN);
    const lines = await problemsOf(text, {});
    assert.equal(lines.length, 5, lines.map((l) => l.slice(0, 200)).join("\n"));
    for (const line of lines) assert.ok(line.length < 600, `${line.length} characters: ${line.slice(0, 160)}…`);
  });

  // The alias bound was 50 uses, as node.yaml's: a rack's plan giving each node the same disks was refused as "a
  // resource exhaustion attack", at 1:1.
  it("a rack of 60 nodes sharing one anchor (config: { storage: *disks }) passes", async () => {
    const node = (i: number) => [
      `  - name: node-${i}`,
      `    installer: https://10.20.0.${i}:9443`,
      `    fingerprint: ${PIN}`,
      `    code: CODE-${i}`,
      `    role: ${i === 11 ? "init" : "join"}`,
      `    config: { network: { interface: eno1, address: 10.20.0.${i}/24 }, storage: ${i === 11 ? "&disks { osdDevices: [/dev/sdb, /dev/sdc] }" : "*disks"} }`,
    ];
    const rack = `${PLAN.slice(0, PLAN.indexOf("nodes:\n") + 7)}${Array.from({ length: 60 }, (_, i) => node(i + 11)).flat().join("\n")}\n`;
    const { result } = await load(rack);
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems.slice(0, 3)));
    assert.equal(result.loaded.nodes.length, 60);
    assert.deepEqual(result.loaded.nodes[59]!.draft().storage, { osdDevices: ["/dev/sdb", "/dev/sdc"] });
  });

  it("the example plan (fleet --example) passes, given its install codes", async () => {
    const { result } = await load(EXAMPLE_PLAN, { NODE01_CODE: "x" });
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    assert.equal(result.loaded.nodes.length, 3);
  });
});
