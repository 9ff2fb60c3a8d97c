import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { stringify } from "yaml";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { DEMO_HOST_FACTS, harness, ROOT, tempDir, type RunningInstaller } from "../helpers/installer.ts";
import { refusingServer } from "../helpers/refusing-server.ts";
import { extractBundle } from "../helpers/support-bundle.ts";

const lab = harness();
const PLAYBOOK = join(ROOT, "ansible/support-bundle.yml");
const missing = spawnSync("ansible-playbook", ["--version"]).status !== 0;

interface Host {
  installer: string;
  fingerprint: string;
  code: string;
}

interface Run {
  exit: number | null;
  output: string;
  recap: Record<string, Record<string, number>>;
}

describe("Ansible: support-bundle.yml fetches each node's bundle to the controller (issue 24)", { skip: missing && "ansible-playbook is not installed (test/setup/ensure-ansible.sh installs Debian's ansible-core when run as root)" }, () => {
  let dir: string;
  const installers: Record<string, RunningInstaller> = {};

  /** An installer whose host facts name it, so that its bundle's manifest says whose it is. */
  async function startNode(name: string): Promise<RunningInstaller> {
    const folder = await tempDir(`stratum-ansible-sb-${name}-`);
    const facts = join(folder, "host-facts.json");
    await writeFile(facts, JSON.stringify({ ...JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8")), hostname: name }));
    const installer = await lab.start({ stateDir: join(folder, "state"), args: ["--host-facts", facts] });
    installers[name] = installer;
    return installer;
  }

  const host = (i: RunningInstaller, code = i.code): Host => ({ installer: `https://127.0.0.1:${i.port}`, fingerprint: i.fingerprint, code });

  async function inventory(file: string, hosts: Record<string, Host>): Promise<string> {
    const path = join(dir, file);
    await writeFile(path, stringify({ stratum: { hosts: Object.fromEntries(Object.entries(hosts).map(([name, h]) => [name, { stratum_node: { ...h, role: "join" } }])) } }));
    return path;
  }

  /** The playbook at -vvv from `cwd` (the operator's folder, where ./support-bundles goes by default). */
  async function playbook(inventoryPath: string, cwd: string, ...args: string[]): Promise<Run> {
    const env = {
      ...process.env,
      LC_ALL: "C.UTF-8",
      ANSIBLE_CONFIG: join(dir, "ansible.cfg"),
      ANSIBLE_HOME: join(dir, "ansible-home"),
      ANSIBLE_LOCAL_TEMP: join(dir, "ansible-tmp"),
      ANSIBLE_NOCOLOR: "1",
      ANSIBLE_STDOUT_CALLBACK: "default",
    };
    const proc = spawn("ansible-playbook", ["-i", inventoryPath, PLAYBOOK, "-vvv", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    proc.stdout.on("data", (d) => (output += d));
    proc.stderr.on("data", (d) => (output += d));
    const exit = await new Promise<number | null>((resolve) => proc.on("close", resolve));
    assert.doesNotMatch(output, /DEPRECATION|FAILED - RETRYING/, output);
    const recap: Run["recap"] = {};
    for (const [, name, counts] of output.slice(output.lastIndexOf("PLAY RECAP")).matchAll(/^(\S+)\s+:\s+(ok=.*)$/gm)) {
      recap[name!] = Object.fromEntries([...counts!.matchAll(/(\w+)=(\d+)/g)].map(([, k, v]) => [k!, Number(v)]));
    }
    return { exit, output, recap };
  }

  const assertNoCode = (output: string) => {
    for (const [name, i] of Object.entries(installers)) assert.ok(!output.includes(i.code), `the install code of ${name} appears in the output`);
  };

  before(async () => {
    dir = await tempDir("stratum-ansible-sb-");
    await writeFile(join(dir, "ansible.cfg"), "");
    await Promise.all(["node-01", "node-02"].map(startNode));
    await mkdir(join(dir, "codes"));
    await writeFile(join(dir, "codes/node-02"), `${installers["node-02"]!.code}\n`, { mode: 0o600 });
  });

  test("each node's bundle lands in ./support-bundles, 0600, unpacking to its own manifest; a node that does not answer fails alone and is named", async () => {
    const gone = await refusingServer();
    lab.defer(() => gone.close());
    const path = await inventory("inventory.yml", {
      "node-01": host(installers["node-01"]!),
      "node-02": host(installers["node-02"]!, "file:codes/node-02"),
      "node-03": { installer: gone.url("https"), fingerprint: installers["node-01"]!.fingerprint, code: "file:codes/node-02" },
    });
    const operator = await tempDir("stratum-ansible-sb-operator-");
    const run = await playbook(path, operator);

    assert.equal(run.exit, 2, run.output);
    assert.deepEqual(
      Object.fromEntries(Object.entries(run.recap).map(([name, r]) => [name, r.failed])),
      { "node-01": 0, "node-02": 0, "node-03": 1 },
      run.output,
    );
    const folder = join(operator, "support-bundles");
    const summary = `support bundles in ${folder}: came: node-01, node-02; did not come: node-03: cannot reach the installer at ${gone.url("https")}`;
    assert.ok(run.output.includes(summary), run.output);
    assert.equal((await stat(folder)).mode & 0o777, 0o700);
    assert.deepEqual((await readdir(folder)).sort(), ["node-01.tar.gz", "node-02.tar.gz"], "no partial file left, none for node-03");
    for (const name of ["node-01", "node-02"]) {
      const file = join(folder, `${name}.tar.gz`);
      assert.equal((await stat(file)).mode & 0o777, 0o600, name);
      const { folder: top, files } = await extractBundle(file);
      assert.match(top, new RegExp(`^stratum-support-${name}-\\d{8}T\\d{6}Z$`));
      const manifest = JSON.parse(files.get("manifest.json")!);
      assert.deepEqual([manifest.bundle, manifest.hostname, manifest.phase], ["stratum-support", name, "configuring"], name);
      assert.ok(files.has("status.json"), name);
    }
    assertNoCode(run.output);
  });

  test("stratum_support_dir sets the folder; a second run replaces each bundle whole", async () => {
    const path = await inventory("inventory-2.yml", { "node-01": host(installers["node-01"]!) });
    const folder = join(await tempDir("stratum-ansible-sb-dir-"), "bundles");
    for (const _ of [1, 2]) {
      const run = await playbook(path, dir, "-e", `stratum_support_dir=${folder}`);
      assert.equal(run.exit, 0, run.output);
      assert.match(run.output, /came: node-01; did not come: none/);
      assertNoCode(run.output);
    }
    assert.deepEqual(await readdir(folder), ["node-01.tar.gz"]);
    assert.equal(JSON.parse((await extractBundle(join(folder, "node-01.tar.gz"))).files.get("manifest.json")!).hostname, "node-01");
  });

  test("a wrong install code fails that node with the installer's answer, saving nothing and showing no code", async () => {
    const wrong = "WRONG-CODE-0123456789";
    const path = await inventory("wrong-code.yml", { "node-01": host(installers["node-01"]!), "node-02": host(installers["node-02"]!, wrong) });
    const operator = await tempDir("stratum-ansible-sb-operator-");
    const run = await playbook(path, operator);
    assert.equal(run.exit, 2, run.output);
    assert.match(run.output, /did not come: node-02: GET \/v1\/installer\/support-bundle: UNAUTHORIZED: /);
    assert.deepEqual(await readdir(join(operator, "support-bundles")), ["node-01.tar.gz"]);
    assert.ok(!run.output.includes(wrong), "the wrong code appears in the output");
    assertNoCode(run.output);
  });

  test("--check fetches nothing and writes nothing", async () => {
    const path = await inventory("inventory-check.yml", { "node-01": host(installers["node-01"]!) });
    const operator = await tempDir("stratum-ansible-sb-operator-");
    const run = await playbook(path, operator, "--check");
    assert.equal(run.exit, 0, run.output);
    assert.match(run.output, /did not come: node-01: check mode: GET \/support-bundle not sent/);
    assert.deepEqual(await readdir(operator), []);
  });

  test("a wrong fingerprint fails that node before anything is sent: the server it reached hears no request", async () => {
    const impostor = await startReadinessServer({ port: 0 });
    lab.defer(() => impostor.close());
    const path = await inventory("impostor.yml", {
      "node-01": host(installers["node-01"]!),
      "node-02": { ...host(installers["node-02"]!), installer: `https://127.0.0.1:${impostor.port}` },
    });
    const operator = await tempDir("stratum-ansible-sb-operator-");
    const run = await playbook(path, operator);
    assert.equal(run.exit, 2, run.output);
    assert.match(run.output, /node-02: the installer at https:\/\/127\.0\.0\.1:\d+ presented a certificate whose SHA-256 is [0-9A-F:]{95}, not the inventory's fingerprint .*nothing was sent/);
    assert.ok(impostor.connections() > 0, "it did connect");
    assert.deepEqual(impostor.received(), [], "and sent nothing");
    assert.deepEqual(await readdir(join(operator, "support-bundles")), ["node-01.tar.gz"]);
    assertNoCode(run.output);
  });
});
