import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { stringify } from "yaml";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { harness, ROOT, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";

const lab = harness();
const started: Node[] = [];
const PLAYBOOK = join(ROOT, "ansible/install-cluster.yml");
const missing = spawnSync("ansible-playbook", ["--version"]).status !== 0;

interface Node {
  name: string;
  role: "init" | "join";
  address: string;
  installer: RunningInstaller;
  cloud: ReadinessServer;
  firstbootRuns(): Promise<number>;
}

interface Run {
  exit: number | null;
  output: string;
  seconds: number;
  recap: Record<string, Record<string, number>>;
}

async function startNode(name: string, role: Node["role"], address: string, options: { release?: string; readinessTimeout?: string } = {}): Promise<Node> {
  const folder = await tempDir(`stratum-ansible-${name}-`);
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const cloud = await startReadinessServer({ port: 0, scenario: "ready", ...(role === "init" ? { foundedWith: nodeYaml } : {}) });
  lab.defer(() => cloud.close());
  const firstboot = await writeFirstboot(folder, `#!/bin/sh\necho run >> "$(dirname "$0")/runs"\n`);
  const payload = join(folder, "payload");
  await makePayload(payload, options.release ? { release: options.release } : {});
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    payload,
    args: ["--firstboot", firstboot, "--node-yaml", nodeYaml, "--readiness-url", cloud.url, "--readiness-timeout", options.readinessTimeout ?? "10", "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  const firstbootRuns = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  const node = { name, role, address, installer, cloud, firstbootRuns };
  started.push(node);
  return node;
}

/** What a run must not change: each node's draft (its ETag) and its attempts. */
async function snapshot(nodes: Node[]) {
  return Promise.all(
    nodes.map(async (n) => {
      const [config, status] = await Promise.all([n.installer.request("/v1/installer/config"), n.installer.request("/v1/installer/status")]);
      return { node: n.name, etag: config.headers.etag, attempt: status.json.attempt, phase: status.json.phase };
    }),
  );
}

const status = async (n: Node) => (await n.installer.request("/v1/installer/status")).json;

describe("Ansible: install-cluster.yml installs a cluster from the inventory (issue 16)", { skip: missing && "ansible-playbook is not installed (test/setup/ensure-ansible.sh installs Debian's ansible-core when run as root)" }, () => {
  let dir: string;
  let init: Node;
  let nodes: Node[];
  const outputs: string[] = [];

  /** The plan as an inventory; node-02's code from a file beside it, node-03's from the environment. */
  async function inventory(file: string, members: Node[], edit: (hosts: Record<string, any>) => void = () => undefined): Promise<string> {
    const hosts: Record<string, any> = {};
    for (const n of members) {
      const code = n.name === "node-02" ? "file:codes/node-02" : n.name === "node-03" ? "env:NODE03_CODE" : n.installer.code;
      hosts[n.name] = {
        stratum_node: {
          installer: `https://127.0.0.1:${n.installer.port}`,
          fingerprint: n.installer.fingerprint,
          code,
          role: n.role,
          config: { network: { interface: "eno1", address: n.address }, storage: { osdDevices: ["/dev/sdb"] } },
        },
      };
    }
    edit(hosts);
    const { mode: _mode, hostname: _hostname, network, ...common } = VALID_DRAFT;
    const plan = {
      stratum: {
        vars: {
          stratum_poll_delay: 1,
          stratum_cluster: {
            name: "lab-1",
            vip: "10.20.0.10",
            joinAddress: `127.0.0.1:${init.cloud.port}`,
            common: { ...common, network: { gateway: network.gateway, dns: network.dns, floatingIpCidrs: network.floatingIpCidrs } },
          },
        },
        hosts,
      },
    };
    const path = join(dir, file);
    await writeFile(path, stringify(plan));
    return path;
  }

  async function playbook(inventoryPath: string, ...args: string[]): Promise<Run> {
    const begun = Date.now();
    const env = {
      ...process.env,
      LC_ALL: "C.UTF-8",
      ANSIBLE_CONFIG: join(dir, "ansible.cfg"),
      ANSIBLE_HOME: join(dir, "ansible-home"),
      ANSIBLE_LOCAL_TEMP: join(dir, "ansible-tmp"),
      ANSIBLE_NOCOLOR: "1",
      ANSIBLE_STDOUT_CALLBACK: "default",
      NODE03_CODE: nodes[2]!.installer.code,
    };
    const proc = spawn("ansible-playbook", ["-i", inventoryPath, PLAYBOOK, "-vv", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    proc.stdout.on("data", (d) => (output += d));
    proc.stderr.on("data", (d) => (output += d));
    const exit = await new Promise<number | null>((resolve) => proc.on("close", resolve));
    outputs.push(output);
    const recap: Run["recap"] = {};
    const tail = output.slice(output.lastIndexOf("PLAY RECAP"));
    for (const [, host, counts] of tail.matchAll(/^(\S+)\s+:\s+(ok=.*)$/gm)) {
      recap[host!] = Object.fromEntries([...counts!.matchAll(/(\w+)=(\d+)/g)].map(([, k, v]) => [k!, Number(v)]));
    }
    return { exit, output, seconds: (Date.now() - begun) / 1000, recap };
  }

  before(async () => {
    dir = await tempDir("stratum-ansible-");
    await writeFile(join(dir, "ansible.cfg"), "");
    init = await startNode("node-01", "init", "10.20.0.11/24");
    nodes = [init, await startNode("node-02", "join", "10.20.0.12/24"), await startNode("node-03", "join", "10.20.0.13/24")];
    await mkdir(join(dir, "codes"));
    await writeFile(join(dir, "codes/node-02"), `${nodes[1]!.installer.code}\n`);
  });

  test("--check on fresh nodes: the plan and every draft are checked, nothing changes", async () => {
    const before = await snapshot(nodes);
    const run = await playbook(await inventory("inventory.yml", nodes), "--check");
    assert.equal(run.exit, 0, run.output);
    assert.match(run.output, /no node was changed/);
    for (const n of nodes) assert.deepEqual({ changed: run.recap[n.name]?.changed, failed: run.recap[n.name]?.failed }, { changed: 0, failed: 0 }, n.name);
    assert.deepEqual(await snapshot(nodes), before);
    assert.ok(before.every((s) => s.phase === "configuring" && s.attempt === 0));
  });

  test("--limit to a join before the init is installed fails naming the init, changing nothing", async () => {
    const before = await snapshot(nodes);
    const run = await playbook(await inventory("inventory.yml", nodes), "--limit", "node-02");
    assert.notEqual(run.exit, 0);
    assert.match(run.output, /node-02: the init node node-01 gives no join token yet \(NOT_FOUND\); install it first/);
    assert.deepEqual(await snapshot(nodes), before);
  });

  test("a plan that breaks the cross-node rules fails with every problem at once, touching nothing", async () => {
    const before = await snapshot(nodes);
    const path = await inventory("broken.yml", nodes, (hosts) => {
      hosts["node-03"].stratum_node.config.network.address = "10.20.0.12/24";
      hosts["node-02"].stratum_node.role = "init";
      hosts["node-02"].stratum_node.config.network.floatingIpCidrs = ["198.51.100.0/24"];
    });
    const run = await playbook(path);
    assert.notEqual(run.exit, 0);
    assert.match(run.output, /node-02: stratum_node\.role: node-02 is a second init \(node-01 is one\)/);
    assert.match(run.output, /node-03: stratum_node\.config\.network\.address: 10\.20\.0\.12\/24 is also node-02's address/);
    assert.match(run.output, /node-02: stratum_node\.config\.network\.floatingIpCidrs: node-02 has floating ranges 198\.51\.100\.0\/24, node-01 203\.0\.113\.0\/24/);
    assert.deepEqual(await snapshot(nodes), before);
  });

  test("a wrong fingerprint fails before any node is touched, naming the node", async () => {
    const before = await snapshot(nodes);
    const path = await inventory("wrong-fingerprint.yml", nodes, (hosts) => {
      hosts["node-03"].stratum_node.fingerprint = init.installer.fingerprint;
    });
    const run = await playbook(path);
    assert.notEqual(run.exit, 0);
    assert.match(run.output, /node-03: the installer at https:\/\/127\.0\.0\.1:\d+ presented a certificate whose SHA-256 is [0-9A-F:]{95}, not the inventory's fingerprint .*nothing was sent/);
    assert.equal(run.recap["node-03"]?.failed, 1);
    assert.deepEqual(await snapshot(nodes), before);
  });

  test("the first run installs the init, then each join in turn with the init's token", async (t) => {
    const run = await playbook(await inventory("inventory.yml", nodes));
    t.diagnostic(`ansible: first run, three nodes: ${run.seconds} s`);
    assert.equal(run.exit, 0, run.output);
    for (const n of nodes) {
      assert.equal(run.recap[n.name]?.failed, 0, n.name);
      assert.ok(run.recap[n.name]!.changed! > 0, n.name);
      assert.equal((await status(n)).phase, "done", n.name);
      assert.equal(await n.firstbootRuns(), 1, n.name);
    }
    const [first, second, third] = await Promise.all(nodes.map(status));
    assert.ok(first.finishedAt <= second.startedAt, "the init is installed before a join starts");
    assert.ok(second.finishedAt <= third.startedAt, "joins one at a time, in inventory order");
  });

  test("a second run changes nothing and reports ok", async (t) => {
    const before = await snapshot(nodes);
    const run = await playbook(await inventory("inventory.yml", nodes));
    t.diagnostic(`ansible: second run, three nodes: ${run.seconds} s`);
    assert.equal(run.exit, 0, run.output);
    for (const n of nodes) assert.deepEqual({ changed: run.recap[n.name]?.changed, failed: run.recap[n.name]?.failed }, { changed: 0, failed: 0 }, n.name);
    assert.deepEqual(await snapshot(nodes), before);
  });

  test("--limit to a join added later: the init's token is read from its API; a readiness timeout is rechecked once", async () => {
    const late = await startNode("node-04", "join", "10.20.0.14/24", { readinessTimeout: "2" });
    late.cloud.setScenario("never");
    const before = await snapshot(nodes);
    // The cloud gets READY once the first attempt timed out, as a slow Ceph bootstrap would.
    let ran = false;
    const flipped = waitFor(
      "node-04's first verdict",
      async () => {
        if (ran) return false;
        if ((await late.installer.request("/v1/installer/install/verdict?attempt=1")).status !== 200) return undefined;
        late.cloud.setScenario("ready");
        return true;
      },
      120_000,
    );
    const run = await playbook(await inventory("inventory-4.yml", [...nodes, late]), "--limit", "node-04");
    ran = true;
    assert.equal(run.exit, 0, run.output);
    assert.equal(await flipped, true);
    assert.deepEqual(Object.keys(run.recap), ["node-04"]);
    const attempts = (await late.installer.request("/v1/installer/install/attempts")).json;
    const verdicts = await Promise.all([1, 2].map(async (a) => (await late.installer.request(`/v1/installer/install/verdict?attempt=${a}`)).json));
    assert.deepEqual(
      verdicts.map((v) => [v.kind, v.outcome, v.next]),
      [
        ["install", "failed", "recheckReadiness"],
        ["recheck-readiness", "succeeded", "none"],
      ],
      JSON.stringify(attempts),
    );
    assert.equal(await late.firstbootRuns(), 1, "a recheck never runs firstboot again");
    assert.deepEqual(await snapshot(nodes), before, "the other nodes are not touched");
  });

  test("a join whose check fails stops before it installs, naming the node, the code and the detail", async () => {
    const other = await startNode("node-05", "join", "10.20.0.15/24", { release: "2026.12.0" });
    const run = await playbook(await inventory("inventory-5.yml", [...nodes, other]), "--limit", "node-05");
    assert.notEqual(run.exit, 0);
    assert.match(run.output, /node-05: the join check failed: JOIN_RELEASE_MISMATCH: the cluster runs release .*2026\.12\.0/);
    const after = await status(other);
    assert.equal(after.attempt, 0, "no install was started");
  });

  test("no install code and no join token in any run's output at -vv", async () => {
    const token: string = (await init.installer.request("/v1/installer/cluster/join-token")).json.token;
    const secrets = { token, secret: token.split(":")[2]!, ...Object.fromEntries(started.map((n) => [`code of ${n.name}`, n.installer.code])) };
    assert.equal(outputs.length, 8, "every run before this one");
    for (const [what, value] of Object.entries(secrets)) {
      for (const [i, output] of outputs.entries()) assert.ok(!output.includes(value), `${what} appears in the output of run ${i + 1}`);
    }
  });
});
