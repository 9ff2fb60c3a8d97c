import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { access, copyFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, describe, test, type TestContext } from "node:test";
import { parse as parseYaml, stringify } from "yaml";
import { startDemoCluster, type DemoCluster, type DemoClusterNode } from "../helpers/demo.ts";
import { fakeInstaller } from "../helpers/fake-node.ts";
import { ROOT, tempDir } from "../helpers/installer.ts";
import { walkThrough } from "../helpers/walk-through.ts";

const COLLECTION = join(ROOT, "ansible/collections/ansible_collections/stratum/installer");
const missing = spawnSync("ansible-playbook", ["--version"]).error !== undefined;
const PASSWORD_HASH = "$6$stratumdemo$JFoKoKdOBUjDFU7XW15P4/HyHodVwasf5u2TGF2e0btOylu2LCwyYWqxRrYW./vt3isdmNkR4lGl8Ri/xLRXB1";

interface Run {
  exit: number | null;
  output: string;
  recap: Record<string, Record<string, number>>;
}

/** What a run must not change: each node's draft (its ETag) and its attempts. */
async function snapshot(nodes: DemoClusterNode[]) {
  return Promise.all(
    nodes.map(async (n) => {
      const [config, status] = await Promise.all([n.call("/config"), n.call("/status")]);
      return { node: n.name, etag: config.headers.etag, attempt: status.json.attempt, phase: status.json.phase };
    }),
  );
}

function recapOf(output: string): Run["recap"] {
  const recap: Run["recap"] = {};
  for (const [, host, counts] of output.slice(output.lastIndexOf("PLAY RECAP")).matchAll(/^(\S+)\s+:\s+(ok=.*)$/gm)) {
    recap[host!] = Object.fromEntries([...counts!.matchAll(/(\w+)=(\d+)/g)].map(([, k, v]) => [k!, Number(v)]));
  }
  return recap;
}

async function run(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<Run> {
  const proc = spawn(command, args, { cwd: options.cwd, env: { ...process.env, LC_ALL: "C.UTF-8", ANSIBLE_NOCOLOR: "1", ANSIBLE_STDOUT_CALLBACK: "default", ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exit = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  assert.doesNotMatch(output, /FAILED - RETRYING/, "no until: retries");
  return { exit, output, recap: recapOf(output) };
}

/**
 * `text` as `ansible-vault encrypt_string` gives it, for the inventory's line `KEY: "<placeholder>"`: `!vault |` and
 * the ciphertext indented under the key.
 */
async function vaulted(text: string, passwordFile: string, env: Record<string, string>): Promise<string> {
  const encrypted = await run("ansible-vault", ["encrypt_string", "--vault-password-file", passwordFile, text], { cwd: dirname(passwordFile), env });
  assert.equal(encrypted.exit, 0, encrypted.output);
  return encrypted.output.slice(encrypted.output.indexOf("!vault |"));
}

function withVaulted(inventory: string, placeholder: string, value: string): string {
  const line = new RegExp(`^( *)(\\S+: )"${placeholder}"$`, "m").exec(inventory);
  assert.ok(line, placeholder);
  const [first, ...cipher] = value.trim().split("\n");
  return inventory.replace(line[0], `${line[1]}${line[2]}${first}\n${cipher.map((l) => `${line[1]}  ${l.trim()}`).join("\n")}`);
}

/** The demo's inventory, edited, written beside it (so its file:codes/… still resolve). */
async function editedInventory(cluster: DemoCluster, name: string, edit: (inventory: any) => void): Promise<string> {
  const inventory = parseYaml(await readFile(cluster.inventory, "utf8"));
  edit(inventory);
  const path = join(cluster.dir, name);
  await writeFile(path, stringify(inventory, { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" }));
  return path;
}

describe("Ansible: the stratum.installer collection's role installs a cluster (issue 26)", { skip: missing && "ansible-playbook is not installed (test/setup/ensure-ansible.sh installs Debian's ansible-core when run as root)" }, () => {
  let dir: string;
  let installed: string;
  let playbook: string;
  let env: Record<string, string>;
  const outputs: string[] = [];

  before(async () => {
    dir = await tempDir("stratum-ansible-");
    env = { ANSIBLE_CONFIG: join(dir, "ansible.cfg"), ANSIBLE_HOME: join(dir, "home"), ANSIBLE_LOCAL_TEMP: join(dir, "tmp"), ANSIBLE_COLLECTIONS_PATH: join(dir, "collections"), ANSIBLE_COLLECTIONS_SCAN_SYS_PATH: "false" };
    await writeFile(join(dir, "ansible.cfg"), "");
    const built = await run("ansible-galaxy", ["collection", "build", COLLECTION, "--output-path", join(dir, "dist")], { cwd: dir, env });
    assert.equal(built.exit, 0, built.output);
    const [tarball, ...others] = await readdir(join(dir, "dist"));
    assert.deepEqual(others, [], "one tarball");
    const install = await run("ansible-galaxy", ["collection", "install", "--offline", join(dir, "dist", tarball!), "-p", join(dir, "collections")], { cwd: dir, env });
    assert.equal(install.exit, 0, install.output);
    installed = join(dir, "collections/ansible_collections/stratum/installer");
    // The README's playbook, away from ansible/collections: the role comes from the installed collection only.
    await mkdir(join(dir, "play"));
    playbook = join(dir, "play/install-cluster.yml");
    await copyFile(join(ROOT, "ansible/install-cluster.yml"), playbook);
  });

  const playbookRun = async (inventory: string, ...args: string[]) => {
    const result = await run("ansible-playbook", ["-i", inventory, playbook, "-vv", ...args], { cwd: join(dir, "play"), env });
    outputs.push(result.output);
    assert.match(result.output, new RegExp(`task path: ${installed}/roles/cluster/tasks/`), "the role ran from the installed collection");
    return result;
  };

  test("the collection builds into a tarball and installs from it, offline, with its role, modules and filter", async () => {
    const manifest = JSON.parse(await readFile(join(installed, "MANIFEST.json"), "utf8"));
    assert.deepEqual([manifest.collection_info.namespace, manifest.collection_info.name], ["stratum", "installer"]);
    for (const file of ["roles/cluster/tasks/main.yml", "roles/cluster/meta/argument_specs.yml", "plugins/modules/install.py", "plugins/filter/plan.py", "meta/runtime.yml"]) await access(join(installed, file));
  });

  test("no task of the role waits with until: (the modules wait, reading the events stream)", async () => {
    for (const file of await readdir(join(COLLECTION, "roles/cluster/tasks"))) {
      assert.doesNotMatch(await readFile(join(COLLECTION, "roles/cluster/tasks", file), "utf8"), /^\s*(until|retries):/m, file);
    }
  });

  describe("fresh nodes, never installed", () => {
    let cluster: DemoCluster;
    before(async () => {
      cluster = await startDemoCluster(await tempDir("stratum-ansible-demo-"), 3);
    });
    after(() => cluster?.stop());

    test("--check --diff changes nothing and shows every node's draft, its secrets redacted, even at -vvv", async () => {
      const before = await snapshot(cluster.nodes);
      const inventory = await editedInventory(cluster, "with-password.yml", (inv) => {
        inv.stratum.vars.stratum_cluster.common.admin.passwordHash = PASSWORD_HASH;
      });
      const check = await playbookRun(inventory, "--check", "--diff", "-vvv");
      assert.equal(check.exit, 0, check.output);
      assert.match(check.output, /"invocation": \{/, "-vvv shows the modules' arguments");
      assert.deepEqual(await snapshot(cluster.nodes), before);
      assert.ok(before.every((s) => s.phase === "configuring" && s.attempt === 0));
      for (const n of cluster.nodes) {
        assert.equal(check.recap[n.name]?.failed, 0, n.name);
        assert.match(check.output, new RegExp(`--- before: ${n.name}: the stored draft\\n\\+\\+\\+ after: the inventory's draft`), n.name);
        assert.match(check.output, new RegExp(`\\+  "hostname": "${n.name}"`), n.name);
      }
      for (const n of cluster.nodes.slice(1)) {
        const diff = check.output.slice(check.output.indexOf(`--- before: ${n.name}: the stored draft`));
        assert.match(diff.slice(0, diff.indexOf("\n}\n")), /\+    "joinToken": "\[redacted/, `${n.name}'s draft shows where its token goes`);
      }
      assert.ok((check.output.match(/"passwordHash": "\[redacted/g)?.length ?? 0) >= 3, "every draft's password hash is redacted");
      assert.ok(!check.output.includes(PASSWORD_HASH), "no password hash in the output");
      for (const n of cluster.nodes) assert.ok(!check.output.includes(n.code), `no install code of ${n.name} in the output`);
    });

    test("install codes and a password hash stored inline with !vault pass the checks (--check --diff), never shown", async () => {
      const before = await snapshot(cluster.nodes);
      const passwordFile = join(cluster.dir, "vault-password");
      await writeFile(passwordFile, "stratum-test-vault\n", { mode: 0o600 });
      let text = await readFile(
        await editedInventory(cluster, "vaulted.yml", (inv) => {
          inv.stratum.vars.stratum_cluster.common.admin.passwordHash = "VAULTED-HASH";
          for (const n of cluster.nodes) inv.stratum.hosts[n.name].stratum_node.code = `VAULTED-${n.name}`;
        }),
        "utf8",
      );
      text = withVaulted(text, "VAULTED-HASH", await vaulted(PASSWORD_HASH, passwordFile, env));
      for (const n of cluster.nodes) text = withVaulted(text, `VAULTED-${n.name}`, await vaulted(n.code, passwordFile, env));
      const inventory = join(cluster.dir, "vaulted.yml");
      await writeFile(inventory, text);

      const check = await playbookRun(inventory, "--check", "--diff", "--vault-password-file", passwordFile);
      assert.equal(check.exit, 0, check.output);
      for (const n of cluster.nodes) assert.equal(check.recap[n.name]?.failed, 0, n.name);
      assert.ok((check.output.match(/"passwordHash": "\[redacted/g)?.length ?? 0) >= 3, "every draft's password hash is redacted");
      assert.ok(!check.output.includes(PASSWORD_HASH), "no password hash in the output");
      for (const n of cluster.nodes) assert.ok(!check.output.includes(n.code), `no install code of ${n.name} in the output`);
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    test("a wrong fingerprint on one node fails the run before any node is touched, naming it", async () => {
      const before = await snapshot(cluster.nodes);
      const inventory = await editedInventory(cluster, "wrong-fingerprint.yml", (inv) => {
        inv.stratum.hosts["node-03"].stratum_node.fingerprint = cluster.nodes[0]!.fingerprint;
      });
      const wrong = await playbookRun(inventory);
      assert.notEqual(wrong.exit, 0);
      assert.match(wrong.output, /node-03: the installer at https:\/\/127\.0\.0\.1:\d+ presented a certificate whose SHA-256 is [0-9A-F:]{95}, not the inventory's fingerprint .*nothing was sent/);
      assert.equal(wrong.recap["node-03"]?.failed, 1);
      for (const n of cluster.nodes) assert.equal(wrong.recap[n.name]?.changed, 0, n.name);
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    test("one host's variables failing the role's argument spec fail the run before any node is touched", async () => {
      const before = await snapshot(cluster.nodes);
      const inventory = await editedInventory(cluster, "bad-variable.yml", (inv) => {
        inv.stratum.hosts["node-03"].stratum_install_timeout = "an hour";
      });
      const bad = await playbookRun(inventory);
      assert.notEqual(bad.exit, 0);
      assert.match(bad.output, /stratum_install_timeout/);
      assert.match(bad.output, /node-03: failed before the checks; no node was changed/);
      for (const n of cluster.nodes) assert.equal(bad.recap[n.name]?.changed, 0, n.name);
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    // stratum_join_batch: Ansible's throttle reads 0 as no limit; stratum_install_timeout: a wait of 0 would start the
    // init's install and give up on it.
    for (const [variable, values, why] of [
      ["stratum_join_batch", [0, -2], "how many joins install at once; Ansible reads a throttle of 0 as no limit"],
      ["stratum_install_timeout", [0, -1], "minutes each node's install may take before the run fails it"],
    ] as const) {
      test(`${variable} below 1 fails the run before any node is touched (${why})`, async () => {
        const before = await snapshot(cluster.nodes);
        for (const value of values) {
          const inventory = await editedInventory(cluster, `${variable}.yml`, (inv) => {
            inv.stratum.vars[variable] = value;
          });
          const bad = await playbookRun(inventory);
          assert.notEqual(bad.exit, 0);
          assert.match(bad.output, new RegExp(`${variable} is ${value}: give 1 or more \\(${why.replace(/[()]/g, "\\$&")}\\)`), bad.output);
          assert.doesNotMatch(bad.output, /TASK \[stratum\.installer\.cluster : Read the node/, "no node was even read");
          for (const n of cluster.nodes) assert.equal(bad.recap[n.name]?.changed, 0, n.name);
        }
        assert.deepEqual(await snapshot(cluster.nodes), before);
      });
    }

    /**
     * A run whose `host` is a fake installer answering `answers` by path (404 elsewhere): it fails in the checks, in
     * words of its own (never a template's undefined variable), and no node changes. Its output.
     */
    const failsOnOddNode = async (t: TestContext, host: string, answers: Record<string, unknown>): Promise<string> => {
      const before = await snapshot(cluster.nodes);
      const odd = await fakeInstaller(t, (req, res) => {
        const body = answers[req.url ?? ""];
        res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { code: "NOT_FOUND" }));
      });
      const inventory = await editedInventory(cluster, `odd-${host}.yml`, (inv) => {
        Object.assign(inv.stratum.hosts[host].stratum_node, { installer: odd.url.origin, fingerprint: odd.pin, code: "K7QX-M2PD-R4T1" });
      });
      const bad = await playbookRun(inventory);
      assert.notEqual(bad.exit, 0);
      assert.doesNotMatch(bad.output, /undefined variable|has no attribute/, bad.output);
      for (const n of cluster.nodes) assert.equal(bad.recap[n.name]?.changed, 0, n.name);
      assert.deepEqual(await snapshot(cluster.nodes), before);
      return bad.output;
    };
    const storedNone = { source: "structured", config: null, valid: false, errors: [], updatedAt: null };

    test("a node listing blockers without a detail (or not as objects) fails the checks naming each, not with a template's undefined variable", async (t) => {
      const output = await failsOnOddNode(t, "node-03", {
        "/v1/installer/status": { phase: "configuring", attempt: 0, blockers: [{ code: "DISK_BUSY" }, { detail: "no code" }, "odd"] },
        "/v1/installer/options": { release: null },
        "/v1/installer/config/validate": { valid: true, errors: [] },
        "/v1/installer/config": storedNone,
      });
      assert.match(output, /node-03: blocked: DISK_BUSY: ; \?: no code; \?: /, output);
    });

    test("a node whose validation lists errors without a field or message (or not as objects) fails the checks naming each, not with a template's undefined variable", async (t) => {
      const release: string = (await cluster.nodes[1]!.call("/options")).json.release;
      const output = await failsOnOddNode(t, "node-01", {
        "/v1/installer/status": { phase: "configuring", attempt: 0 },
        "/v1/installer/options": { release },
        "/v1/installer/config/validate": { valid: false, errors: [{ message: "no field" }, { field: "hostname" }, "odd", { field: null, message: "null field" }] },
        "/v1/installer/config": storedNone,
      });
      assert.match(output, /node-01: the draft does not validate: \(config\): no field; hostname: ; \(config\): \\?"odd\\?"; \(config\): null field/, output);
    });

    test("--limit to a join while the init is not installed fails naming the init, touching nothing", async () => {
      const before = await snapshot(cluster.nodes);
      const early = await playbookRun(cluster.inventory, "--limit", "node-02");
      assert.notEqual(early.exit, 0);
      assert.match(early.output, /node-01, the init, is not installed yet \(phase configuring\), so the joins of this run \(node-02\) cannot be installed alone: install node-01 first \(run without --limit, or with node-01 in the limit\); no node was changed/, early.output);
      assert.doesNotMatch(early.output, /NOT_FOUND|no join token|This node.s mode is/, early.output);
      assert.doesNotMatch(early.output, /TASK \[stratum\.installer\.cluster : The join's draft/, "it fails in the checks, before any draft");
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    test("--check with --limit to the joins while the init is not installed fails as the real run does, naming the init, touching nothing", async () => {
      const before = await snapshot(cluster.nodes);
      const said = /"msg": "(node-01, the init, is not installed yet [^"]*)"/;
      const real = await playbookRun(cluster.inventory, "--limit", "node-02,node-03");
      assert.notEqual(real.exit, 0, real.output);
      const check = await playbookRun(cluster.inventory, "--limit", "node-02,node-03", "--check", "--diff");
      assert.notEqual(check.exit, 0, check.output);
      assert.match(check.output, /node-01, the init, is not installed yet \(phase configuring\), so the joins of this run \(node-02, node-03\) cannot be installed alone: install node-01 first \(run without --limit, or with node-01 in the limit\); no node was changed/, check.output);
      assert.ok(said.test(real.output), real.output);
      assert.equal(said.exec(check.output)?.[1], said.exec(real.output)?.[1], "the check says what the real run says");
      assert.doesNotMatch(check.output, /NOT_FOUND|no join token|This node.s mode is/, check.output);
      assert.doesNotMatch(check.output, /TASK \[stratum\.installer\.cluster : (Read the join token|The join's draft|The join passes)/, "it fails in the checks, before the token or any draft");
      for (const n of cluster.nodes.slice(1)) assert.equal(check.recap[n.name]?.changed, 0, n.name);
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    test("the role's local connection and interpreter stay its own: another role of the same play sees neither", async () => {
      const before = await snapshot(cluster.nodes);
      await mkdir(join(dir, "play/roles/probe/tasks"), { recursive: true });
      await writeFile(
        join(dir, "play/roles/probe/tasks/main.yml"),
        "- name: What the next role sees\n  ansible.builtin.debug:\n    msg: \"probe: connection={{ ansible_connection | default('(unset)') }} interpreter={{ ansible_python_interpreter | default('(unset)') }}\"\n",
      );
      const probe = join(dir, "play/with-probe.yml");
      await writeFile(probe, "- name: The cluster role, then another role\n  hosts: stratum\n  gather_facts: false\n  roles: [stratum.installer.cluster, probe]\n");
      const check = await run("ansible-playbook", ["-i", cluster.inventory, probe, "--check"], { cwd: join(dir, "play"), env });
      assert.equal(check.exit, 0, check.output);
      // ssh: Ansible's own default, as the inventory leaves it.
      for (const n of cluster.nodes) {
        assert.equal(check.recap[n.name]?.failed, 0, n.name);
        assert.match(check.output, new RegExp(`ok: \\[${n.name}\\] => \\{\\n    "msg": "probe: connection=ssh interpreter=\\(unset\\)"`), check.output);
      }
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    test("an inventory whose group is not named stratum fails the run, naming the group the playbook installs, touching nothing", async () => {
      const before = await snapshot(cluster.nodes);
      const inventory = await editedInventory(cluster, "misspelt.yml", (inv) => {
        inv.stratun = inv.stratum;
        delete inv.stratum;
      });
      for (const limit of [[], ["--limit", "node-02"]]) {
        const none = await run("ansible-playbook", ["-i", inventory, playbook, ...limit], { cwd: join(dir, "play"), env });
        assert.notEqual(none.exit, 0, none.output);
        assert.match(none.output, /no node to install: this playbook installs the hosts of the inventory's group 'stratum', and the inventory has no such group \(its groups: stratun\)/, none.output);
      }
      const withBastion = await editedInventory(cluster, "with-bastion.yml", (inv) => {
        inv.bastions = { hosts: { "jump-01": { ansible_connection: "local" } } };
      });
      const limited = await run("ansible-playbook", ["-i", withBastion, playbook, "--limit", "jump-01"], { cwd: join(dir, "play"), env });
      assert.notEqual(limited.exit, 0, limited.output);
      assert.match(limited.output, /no node to install: this playbook installs the hosts of the inventory's group 'stratum', and --limit leaves none of them \(stratum: node-01, node-02, node-03\)/, limited.output);
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });

    test("a plan that breaks the cross-node rules fails with every problem at once, before any node is touched", async () => {
      const before = await snapshot(cluster.nodes);
      const inventory = await editedInventory(cluster, "broken.yml", (inv) => {
        inv.stratum.hosts["node-03"].stratum_node.config.network.address = "10.20.0.12/24";
        inv.stratum.hosts["node-02"].stratum_node.role = "init";
        delete inv.stratum.hosts["node-01"].stratum_node.code;
      });
      const broken = await playbookRun(inventory);
      assert.notEqual(broken.exit, 0);
      assert.match(broken.output, /node-01: stratum_node\.code: code is required/, broken.output);
      assert.doesNotMatch(broken.output, /undefined variable|has no attribute/, broken.output);
      assert.match(broken.output, /node-02: stratum_node\.role: node-02 is a second init \(node-01 is one\)/, broken.output);
      assert.match(broken.output, /node-03: stratum_node\.config\.network\.address: 10\.20\.0\.12\/24 is also node-02's address/);
      assert.match(broken.output, /TASK \[stratum\.installer\.cluster : The plan holds/);
      assert.doesNotMatch(broken.output, /TASK \[stratum\.installer\.cluster : Read the node/, "no node was even read");
      assert.deepEqual(await snapshot(cluster.nodes), before);
    });
  });

  test("one join failing stops no other: the joins after it install, the run fails once they ended, naming it", async (t) => {
    const cluster = await startDemoCluster(await tempDir("stratum-ansible-demo-"), 4, { FIRSTBOOT_FAIL_HOST: "node-02" });
    t.after(() => cluster.stop());
    const result = await playbookRun(cluster.inventory);
    assert.notEqual(result.exit, 0, result.output);
    assert.equal(result.recap["node-02"]?.failed, 1, result.output);
    assert.match(result.output, /node-02: the install failed: FIRSTBOOT_FAILED at firstboot/, result.output);
    const statuses = await Promise.all(cluster.nodes.map(async (n) => (await n.call("/status")).json));
    assert.deepEqual(statuses.map((s) => [s.phase, s.attempt]), [["done", 1], ["failed", 1], ["done", 1], ["done", 1]], result.output);
  });

  test("`npm start`'s cluster: the first run installs the init, then each join in turn; a join added later installs alone; the printed line's run changes nothing", async (t) => {
    const cluster = await startDemoCluster(await tempDir("stratum-ansible-demo-"), 4);
    t.after(() => cluster.stop());
    // The README's and docs/ansible.md's walk-through is this command and the line it prints, as written.
    const printed = cluster.command.replace(`${dirname(cluster.dir)}/`, ".demo/");
    assert.equal(printed, "ansible-playbook -i .demo/cluster/inventory.yml ansible/install-cluster.yml");
    for (const [guide, section] of [["README.md", "## A whole cluster, with Ansible"], ["docs/ansible.md", "## Try it on one machine"]] as const) {
      assert.equal(await walkThrough(guide, section, []), `npm start -- --nodes 3\n${printed}\n`, guide);
    }
    for (const file of ["inventory.yml", ...cluster.nodes.map((n) => `codes/${n.name}`)]) {
      assert.equal((await stat(join(cluster.dir, file))).mode & 0o777, 0o600, file);
    }
    const [first3, late] = [cluster.nodes.slice(0, 3), cluster.nodes[3]!];

    const first = await playbookRun(cluster.inventory, "--limit", "all:!node-04");
    assert.equal(first.exit, 0, first.output);
    assert.deepEqual(Object.keys(first.recap), ["node-01", "node-02", "node-03"]);
    for (const n of first3) assert.ok(first.recap[n.name]!.changed! > 0 && first.recap[n.name]!.failed === 0, n.name);
    const statuses = await Promise.all(cluster.nodes.map(async (n) => (await n.call("/status")).json));
    assert.deepEqual(statuses.map((s) => s.phase), ["done", "done", "done", "configuring"]);
    const [init, second, third] = statuses;
    assert.ok(init.finishedAt <= second.startedAt && init.finishedAt <= third.startedAt, "the init is installed before a join starts");
    assert.ok(second.finishedAt <= third.startedAt, "stratum_join_batch 1: one join at a time, in inventory order");
    // Each join asked for its join check (a request's, not the preflight's) before its attempt started; the init none.
    for (const n of first3) {
      const log = (await readFile(join(cluster.dir, `${n.name}.log`), "utf8")).split("\n").map((line) => (line.startsWith("{") ? JSON.parse(line) : {}));
      const asked = log.findIndex((e) => e.message === "join check" && e.requestId);
      const started = log.findIndex((e) => e.message === "attempt started");
      assert.deepEqual({ asked: asked >= 0, first: asked < started }, n === first3[0] ? { asked: false, first: true } : { asked: true, first: true }, n.name);
    }

    // An installed node is not reconfigured: a change of its config is said, per node, at the default verbosity.
    const retimed = await editedInventory(cluster, "retimed.yml", (inv) => {
      inv.stratum.vars.stratum_cluster.common.timezone = "Europe/Paris";
    });
    const unchanged = await snapshot(cluster.nodes);
    for (const flags of [["--check", "--diff"], []]) {
      const warned = await run("ansible-playbook", ["-i", retimed, playbook, "--limit", "all:!node-04", ...flags], { cwd: join(dir, "play"), env });
      assert.equal(warned.exit, 0, warned.output);
      const said = warned.output.replace(/\s+/g, " ");
      for (const n of first3) {
        assert.deepEqual({ changed: warned.recap[n.name]?.changed, failed: warned.recap[n.name]?.failed }, { changed: 0, failed: 0 }, n.name);
        assert.ok(said.includes(`[WARNING]: ${n.name}: installed already (attempt 1), its config is kept: the inventory's draft differs at timezone, not applied (an installed node is not reconfigured)`), `${n.name}\n${warned.output}`);
      }
      assert.doesNotMatch(said, /differs at [^:]*cluster\.joinToken/, "the same token is no difference");
    }
    assert.deepEqual(await snapshot(cluster.nodes), unchanged);
    // A cluster-wide change the installed init contradicts fails in the checks, naming both values: no draft is
    // written, node-04's (a join not installed yet) included.
    const joinAddress: string = parseYaml(await readFile(cluster.inventory, "utf8")).stratum.vars.stratum_cluster.joinAddress;
    for (const [edit, said] of [
      [(c: any) => (c.name = "lab-2"), /cluster name: node-01, the installed init, founded cluster lab-1; the inventory says lab-2 \(stratum_cluster\.name\)/],
      [(c: any) => (c.vip = "10.20.0.9"), /vip: node-01, the installed init, has vip 10\.20\.0\.10; the inventory says 10\.20\.0\.9 \(stratum_cluster\.vip\)/],
      [(c: any) => (c.joinAddress = "127.0.0.1:1"), new RegExp(`join address: node-02, node-03, installed, joined ${joinAddress.replaceAll(".", "\\.")}; the inventory says 127\\.0\\.0\\.1:1 \\(stratum_cluster\\.joinAddress\\)`)],
    ] as const) {
      const contradicting = await editedInventory(cluster, "contradicting.yml", (inv) => edit(inv.stratum.vars.stratum_cluster));
      for (const flags of [["--check", "--diff"], []]) {
        const refused = await playbookRun(contradicting, ...flags);
        assert.notEqual(refused.exit, 0, refused.output);
        assert.match(refused.output, /the inventory contradicts the installed cluster, whose init is not reconfigured; no node was changed: /, refused.output);
        assert.match(refused.output, said, refused.output);
        assert.doesNotMatch(refused.output, /TASK \[stratum\.installer\.cluster : The (init node|join)'s draft/, "it fails in the checks, before any draft");
      }
    }
    assert.deepEqual(await snapshot(cluster.nodes), unchanged);

    // With the init installed, --check of a join the run adds alone passes and shows its draft, changing nothing.
    const unadded = await snapshot(cluster.nodes);
    const addCheck = await playbookRun(cluster.inventory, "--limit", "node-04", "--check", "--diff");
    assert.equal(addCheck.exit, 0, addCheck.output);
    assert.equal(addCheck.recap["node-04"]?.failed, 0, addCheck.output);
    assert.match(addCheck.output, /--- before: node-04: the stored draft/, addCheck.output);
    assert.deepEqual(await snapshot(cluster.nodes), unadded);

    const installed = await snapshot(first3);
    const added = await playbookRun(cluster.inventory, "--limit", "node-04");
    assert.equal(added.exit, 0, added.output);
    assert.deepEqual(Object.keys(added.recap), ["node-04"]);
    assert.equal((await late.call("/status")).json.phase, "done");
    assert.deepEqual(await snapshot(first3), installed, "the others are not touched");

    // The line `npm start` printed, run as printed from the repository's root (the collection beside the playbook).
    const before = await snapshot(cluster.nodes);
    const [command, ...args] = cluster.command.split(" ");
    const { ANSIBLE_COLLECTIONS_PATH: _installed, ...besideThePlaybook } = env;
    const again = await run(command!, [...args, "-vv"], { cwd: ROOT, env: besideThePlaybook });
    outputs.push(again.output);
    assert.equal(again.exit, 0, again.output);
    for (const n of cluster.nodes) assert.deepEqual({ changed: again.recap[n.name]?.changed, failed: again.recap[n.name]?.failed }, { changed: 0, failed: 0 }, n.name);
    assert.deepEqual(await snapshot(cluster.nodes), before);

    const token: string = (await cluster.nodes[0]!.call("/cluster/join-token")).json.token;
    for (const [i, output] of outputs.entries()) {
      assert.ok(!output.includes(token) && !output.includes(token.split(":")[2]!), `the join token appears in run ${i + 1}`);
      for (const n of cluster.nodes) assert.ok(!output.includes(n.code), `${n.name}'s install code appears in run ${i + 1}`);
    }
  });
});

test("the README's and docs/ansible.md's walk-through ends with the PLAY RECAP they show: its command, as printed, run at the repository's root against `npm start -- --nodes 3`", { skip: missing && "ansible-playbook is not installed" }, async (t) => {
  const cluster = await startDemoCluster(await tempDir("stratum-ansible-recap-"), 3);
  t.after(() => cluster.stop());
  const [, inventory, playbook] = /^ansible-playbook -i (\S+) (\S+)$/.exec(cluster.command)!;
  const played = await run("ansible-playbook", ["-i", inventory!, playbook!], { cwd: ROOT, env: {} });
  assert.equal(played.exit, 0, played.output);
  for (const guide of ["README.md", "docs/ansible.md"]) {
    assert.deepEqual(recapOf(await readFile(join(ROOT, guide), "utf8")), played.recap, `${guide}\n${played.output.slice(played.output.lastIndexOf("PLAY RECAP"))}`);
  }
});
