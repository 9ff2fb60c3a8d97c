import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync } from "node:fs";
import { lstat, mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, test } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { fakeInstaller } from "../helpers/fake-node.ts";
import { type FleetRig, planText, type RigNode, startRig } from "../helpers/fleet.ts";
import { BUNDLE, ROOT, harness, runCli, tempDir, waitFor } from "../helpers/installer.ts";

const lab = harness();

/** What `--dry-run` and a refused node must leave as it was: each node's draft version and attempt count. */
async function footprint(rig: FleetRig): Promise<Array<[string, string, number]>> {
  return Promise.all(
    rig.nodes.map(async (n) => {
      const [config, status] = await Promise.all([n.installer.request("/v1/installer/config"), n.installer.request("/v1/installer/status")]);
      return [n.name, String(config.headers.etag), status.json.attempt] as [string, string, number];
    }),
  );
}

/** A valid plan of two nodes nobody serves (ports 10 and 11): for what the fleet refuses before it contacts a node. */
async function offlinePlan(prefix: string): Promise<{ folder: string; plan: string; env: Record<string, string> }> {
  const folder = await tempDir(prefix);
  const plan = join(folder, "cluster.yaml");
  const code = (i: number) => `ABCD-EFGH-JKM${"NP"[i - 1]}`;
  const nodes = [1, 2].map((i) => ({ name: `node-0${i}`, role: i === 1 ? "init" : "join", installer: { port: 9 + i, fingerprint: `${i}b`.repeat(32), code: code(i) } }));
  await mkdir(join(folder, "codes"));
  await writeFile(join(folder, "codes/node-02"), `${code(2)}\n`);
  await writeFile(plan, planText(nodes as RigNode[], 9));
  return { folder, plan, env: { NODE01_CODE: code(1) } };
}

async function statusOf(node: RigNode) {
  return (await node.installer.request("/v1/installer/status")).json;
}

async function assertInstalledOnce(rig: FleetRig) {
  for (const node of rig.nodes) {
    const status = await statusOf(node);
    assert.equal(status.phase, "done", `${node.name}: ${JSON.stringify(status)}`);
    assert.equal(status.attempt, 1, `${node.name} installed with one attempt`);
    assert.equal(await node.firstbootRuns(), 1, `${node.name} ran firstboot once`);
  }
}

const planHash = async (rig: FleetRig) => createHash("sha256").update(await readFile(rig.planFile)).digest("hex");

describe("fleet: a whole cluster from one plan (SPEC §10)", () => {
  test("a full install: the init node, its token into the joins, every node done with one attempt; --json lines; the report and the state file; a rerun changes nothing", async () => {
    const rig = await startRig(lab, { joins: 2 });
    const run = await rig.fleet(["--json"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.ok(lines.every((l) => "node" in l && typeof l.type === "string" && typeof l.time === "string"), "every line has node, type and time");
    for (const node of rig.nodes) {
      const own = lines.filter((l) => l.node === node.name);
      assert.ok(own.some((l) => l.type === "attempt.finished" && l.data?.verdict?.outcome === "succeeded"), `${node.name}'s events: ${JSON.stringify(own.map((l) => l.type))}`);
      assert.deepEqual(own.find((l) => l.type === "fleet.outcome"), { ...own.find((l) => l.type === "fleet.outcome"), outcome: "installed", attempt: 1 });
    }
    assert.deepEqual(lines.at(-1), { ...lines.at(-1), node: null, type: "fleet.end", exit: 0 });
    await assertInstalledOnce(rig);

    const [init, ...joins] = rig.nodes;
    const token = (await init!.installer.request("/v1/installer/cluster/join-token")).json.token as string;
    for (const join of joins) {
      const draft = (await join.installer.request("/v1/installer/config")).json.config;
      assert.equal(draft.hostname, join.name);
      assert.equal(draft.mode, "hyperconverged-join");
      assert.equal(draft.network.vip, "10.20.0.10", "the drafts carry the plan's addresses");
      assert.deepEqual(draft.cluster, { name: "lab-1", joinAddress: `127.0.0.1:${init!.cloud.port}`, joinToken: token });
    }

    const report = await readFile(join(rig.folder, "fleet-report.json"), "utf8");
    const parsed = JSON.parse(report);
    assert.deepEqual(parsed.nodes.map((n: { name: string; verdict: { outcome: string } }) => [n.name, n.verdict.outcome]), rig.nodes.map((n) => [n.name, "succeeded"]));
    assert.ok(parsed.nodes.every((n: { report: { steps: unknown[] } }) => n.report.steps.length === 4));
    for (const secret of [token, token.split(":")[2]!, ...rig.nodes.map((n) => n.installer.code)]) assert.ok(!report.includes(secret), "no secret in the report");

    const state = JSON.parse(await readFile(join(rig.folder, "cluster.fleet-state.json"), "utf8"));
    assert.equal(state.planHash, await planHash(rig));
    for (const node of rig.nodes) assert.deepEqual(state.nodes[node.name], { ...state.nodes[node.name], attempt: 1, outcome: "succeeded" });

    const again = await rig.fleet();
    assert.equal(again.code, 0, again.stdout + again.stderr);
    for (const node of rig.nodes) assert.match(again.stdout, new RegExp(`\\[${node.name}\\] installed already\\n`));
    await rig.writePlan((text) => text.replace("address: 10.20.0.13/24 }", "address: 10.20.0.13/24, dns: [10.20.0.9] }"));
    const changed = await rig.fleet();
    assert.equal(changed.code, 0, changed.stdout + changed.stderr);
    assert.match(changed.stdout, /the plan changed since .* was written/);
    assert.match(changed.stdout, /\[node-03\] warning: installed already; the plan differs at network\.dns: not re-applied/);
    assert.deepEqual((await rig.nodes[2]!.installer.request("/v1/installer/config")).json.config.network.dns, ["10.20.0.2"]);
    await assertInstalledOnce(rig);
  });

  test("the report cannot be written (something else where fleet-report.json goes): the nodes installed, the summary shown, the file named with what to do; exit 1", async () => {
    const rig = await startRig(lab, { joins: 1 });
    await mkdir(join(rig.folder, "fleet-report.json", "in-the-way"), { recursive: true });
    const run = await rig.fleet();
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /2 of 2 nodes installed/);
    const report = join(rig.folder, "fleet-report.json");
    assert.ok((run.stdout + run.stderr).includes(`fleet-report.json cannot be written to ${report} (EISDIR: a folder is where a file goes): ${report} is a folder, not a file: move it out of the way, or give --state in another folder`), run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, /free space/);
    assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack trace");
    await assertInstalledOnce(rig);
    const state = JSON.parse(await readFile(join(rig.folder, "cluster.fleet-state.json"), "utf8"));
    for (const node of rig.nodes) assert.equal(state.nodes[node.name].outcome, "succeeded");
  });

  // The installs were sent without their start's mark on disk: a run killed -9 as a node took one left the next run
  // no way to tell that attempt from one someone else started, and it could retry it (firstboot again) unseen.
  test("the state file cannot be written (something else where its journal goes): told once as it begins, once at the end; no install is sent without its start recorded: the init node not started, saying why, the join with it; --json ends exit 1 as the process does; once the file can be written, the same command installs them", async () => {
    const rig = await startRig(lab, { joins: 1 });
    const journal = join(rig.folder, "cluster.fleet-state.json.journal");
    await mkdir(join(journal, "in-the-way"), { recursive: true });
    const run = await rig.fleet(["--json"]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const lines = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const said = `the state file ${join(rig.folder, "cluster.fleet-state.json")} cannot be written (EISDIR: a folder is where a file goes): ${journal} is a folder, not a file: move it out of the way, or give another with --state; run the same command again to go on where this run stopped`;
    const told = lines.filter((l) => l.type === "fleet.note" && l.node === null && l.message.includes(said));
    assert.deepEqual(told.map((l) => [l.level, /the installs sent go on; no other is sent until its start is recorded in it/.test(l.message)]), [["warn", true], ["error", false]], JSON.stringify(told));
    const notSent = `not started: its install was not sent, as its start could not be recorded first: ${said}`;
    assert.deepEqual(lines.filter((l) => l.type === "fleet.note" && l.node === "node-01" && l.level === "error").map((l) => l.message), [notSent]);
    const end = lines.findIndex((l) => l.type === "fleet.end");
    assert.equal(lines[end].exit, 1);
    assert.ok(lines.indexOf(told[1]) < end, "the end's error comes before fleet.end");
    assert.deepEqual(lines.filter((l) => l.type === "fleet.outcome").map((l) => [l.outcome, l.detail]), [["stopped", notSent], ["stopped", "not started: the init node node-01 did not install"]]);
    assert.equal(JSON.parse(await readFile(join(rig.folder, "fleet-report.json"), "utf8")).exit, 1, "the report says the exit the process gives");
    for (const node of rig.nodes) assert.deepEqual(await statusOf(node).then((s) => [s.phase, s.attempt]), ["configuring", 0], `${node.name}: no install sent`);
    // No node failed: the trouble is the fleet's own, and the nodes' support bundles would not tell it.
    assert.ok(!run.stdout.includes("gather what happened"), "no command to gather the nodes' support bundles");

    await rm(journal, { recursive: true });
    const again = await rig.fleet();
    assert.equal(again.code, 0, again.stdout + again.stderr);
    await assertInstalledOnce(rig);
  });

  test("--dry-run: every node validates its draft, and nothing changes on any node", async () => {
    const rig = await startRig(lab, { joins: 2 });
    const before = await footprint(rig);
    const run = await rig.fleet(["--dry-run"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    for (const node of rig.nodes) assert.match(run.stdout, new RegExp(`${node.name}\\s+${node.role}\\s+127\\.0\\.0\\.1:${node.installer.port}\\s+configuring\\s+0\\s+2026\\.11\\.0\\s+none\\s+valid`));
    assert.match(run.stdout, /dry run: every node validated its draft .*nothing was changed/);
    assert.deepEqual(await footprint(rig), before);
  });

  test("--dry-run: what only a node knows (its disks) comes back at the plan's line", async () => {
    const rig = await startRig(lab, { joins: 1 });
    await rig.writePlan((text) => text.replace("address: 10.20.0.12/24 }, storage: { osdDevices: [/dev/sdb]", "address: 10.20.0.12/24 }, storage: { osdDevices: [/dev/sda]"));
    const before = await footprint(rig);
    const run = await rig.fleet(["--dry-run"]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /cluster\.yaml:\d+:\d+ nodes\[1\]\.config\.storage\.osdDevices\[0\]: storage\.osdDevices\[0\] \/dev\/sda is in use/);
    assert.match(run.stdout, /node-02 +join .* 1 problem/);
    assert.deepEqual(await footprint(rig), before);
  });

  test("a wrong fingerprint refuses that node (exit 2) before anything is sent, and nothing changes anywhere", async () => {
    const rig = await startRig(lab, { joins: 2 });
    const [, second, third] = rig.nodes;
    await rig.writePlan((text) => text.replace(`fingerprint: "${third!.installer.fingerprint}"`, `fingerprint: "${second!.installer.fingerprint}"`));
    const before = await footprint(rig);
    const run = await rig.fleet();
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stdout, /\[node-03\] error: refused: 127\.0\.0\.1:\d+ presented a certificate whose SHA-256 is [0-9A-F:]{95}, not the plan's/);
    assert.match(run.stdout, /nothing was changed on any node/);
    assert.deepEqual(await footprint(rig), before);

    // A server that is not the pinned one (here a TLS server of the demo's) hears no request: the code is never sent to it.
    const impostor = await startReadinessServer({ port: 0 });
    lab.defer(() => impostor.close());
    await rig.writePlan((text) => text.replace(`127.0.0.1:${third!.installer.port}`, `127.0.0.1:${impostor.port}`));
    const refused = await rig.fleet();
    assert.equal(refused.code, 2);
    assert.ok(impostor.connections() > 0, "the fleet did connect");
    assert.deepEqual(impostor.received(), [], "and sent nothing");
    assert.deepEqual(await footprint(rig), before);
  });

  test("a join whose cloud is not READY in time is rechecked, and completes", async () => {
    // 4 s a wait: the test's poll must see the first one fail and make the cloud READY within the recheck's wait.
    const rig = await startRig(lab, { joins: 2, scenarios: { "node-02": "never" }, readinessTimeoutSeconds: 4 });
    const slow = rig.nodes[1]!;
    const fleet = rig.spawnFleet();
    // The cloud gets READY once the first wait has timed out, while the fleet's recheck waits.
    await waitFor("node-02's first attempt to fail", async () => ((await statusOf(slow)).attempt >= 2 || (await statusOf(slow)).phase === "failed" ? true : undefined), 30_000);
    slow.cloud.setScenario("ready");
    const run = await fleet.done;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /\[node-02\] warning: READINESS_TIMEOUT: .* rechecking readiness \(1 of 1\)/);
    const attempts = (await slow.installer.request("/v1/installer/install/attempts")).json;
    assert.deepEqual(attempts.attempts.map((a: { kind: string; state: string }) => [a.kind, a.state]), [["install", "failed"], ["recheck-readiness", "succeeded"]]);
    assert.equal(await slow.firstbootRuns(), 1, "a recheck never runs firstboot again");
    for (const node of [rig.nodes[0]!, rig.nodes[2]!]) assert.equal((await statusOf(node)).attempt, 1);
  });

  test("a failed join stops no other join; exit 1, the summary says why", async () => {
    const rig = await startRig(lab, { joins: 2, failing: ["node-02"] });
    const run = await rig.fleet();
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /\[node-02\] error: attempt 1 failed: FIRSTBOOT_FAILED: .*\(next: retryInstall\)/);
    assert.match(run.stdout, /node-02 +join +failed +1 .*FIRSTBOOT_FAILED/);
    assert.match(run.stdout, /node-03 +join +installed +1/);
    assert.match(run.stdout, /2 of 3 nodes installed/);
    assert.equal((await statusOf(rig.nodes[2]!)).phase, "done");
  });

  test("a failed init stops the joins, which depend on it: none is started", async () => {
    const rig = await startRig(lab, { joins: 1, failing: ["node-01"] });
    const run = await rig.fleet();
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /node-02 +join +stopped +- .*not started: the init node node-01 did not install/);
    for (const join of rig.nodes.slice(1)) assert.equal((await statusOf(join)).attempt, 0);
  });

  test("a verdict that says fixConfig stops the node with its errors: a join address that is not the founding node's cloud", async () => {
    const rig = await startRig(lab, { joins: 1 });
    const stranger = await startReadinessServer({ port: 0, cluster: { name: "lab-1", secret: "c".repeat(43) } });
    lab.defer(() => stranger.close());
    await rig.writePlan((text) => text.replace(`joinAddress: 127.0.0.1:${rig.nodes[0]!.cloud.port}`, `joinAddress: 127.0.0.1:${stranger.port}`));
    const run = await rig.fleet(["--rechecks", "3"]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /\[node-02\] error: attempt 1 failed: PREFLIGHT_FAILED: .*\(next: fixConfig\)/);
    assert.match(run.stdout, /\[node-02\] error: join check fingerprint: JOIN_FINGERPRINT_MISMATCH: /);
    assert.equal((await statusOf(rig.nodes[1]!)).attempt, 1, "no recheck, no retry");
    assert.deepEqual(stranger.received(), [], "the join sent nothing to a cloud its token does not pin");
  });

  test("the fleet killed mid-install (kill -9) and run again: it follows what runs and goes on, with no second attempt on any node", async () => {
    // node-02's cloud is READY only once the second fleet follows its attempt: how long the kill and the restart take does not matter.
    const rig = await startRig(lab, { joins: 2, scenarios: { "node-02": "never" }, readinessTimeoutSeconds: 600 });
    const fleet = rig.spawnFleet();
    await waitFor("node-02 in readiness", async () => (fleet.output().stdout.includes("[node-02] step: readiness") ? true : undefined), 30_000);
    fleet.proc.kill("SIGKILL");
    await fleet.done;
    const again = rig.spawnFleet();
    await waitFor("the second fleet to follow node-02", async () => (again.output().stdout.includes("[node-02] attempt 1 is running: following it") ? true : undefined), 30_000);
    rig.nodes[1]!.cloud.setScenario("ready");
    const run = await again.done;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /\[node-01\] installed already/);
    assert.match(run.stdout, /\[node-03\] install attempt 1 started/);
    await assertInstalledOnce(rig);
  });

  test("a second run on the same state file while one installs is refused, naming the first; it changes nothing", async () => {
    // node-01's cloud is READY only once the second run was refused: the first run is always still installing then.
    const rig = await startRig(lab, { joins: 1, scenarios: { "node-01": "never" }, readinessTimeoutSeconds: 600 });
    const first = rig.spawnFleet();
    await waitFor("node-01 in readiness", async () => (first.output().stdout.includes("[node-01] step: readiness") ? true : undefined), 30_000);
    const second = await rig.fleet();
    assert.equal(second.code, 2, second.stdout + second.stderr);
    assert.match(second.stdout, new RegExp(`another fleet run \\(pid ${first.proc.pid}\\) is installing from .*cluster\\.fleet-state\\.json \\(its lock: .*cluster\\.fleet-state\\.json\\.lock\\): two would drive the same nodes at once; wait for it to end, or stop it`));
    assert.doesNotMatch(second.stdout, /install attempt|following it/);
    assert.equal((await statusOf(rig.nodes[0]!)).attempt, 1);
    assert.equal((await statusOf(rig.nodes[1]!)).attempt, 0, "the second run started nothing");
    rig.nodes[0]!.cloud.setScenario("ready");
    const run = await first.done;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    await assertInstalledOnce(rig);
    const after = await rig.fleet();
    assert.equal(after.code, 0, "the lock is gone with its run");
    // A state file in a folder not made yet: made, as the state file's own write makes it.
    const elsewhere = join(rig.folder, "runs/today/cluster.fleet-state.json");
    const fresh = await rig.fleet(["--state", elsewhere]);
    assert.equal(fresh.code, 0, fresh.stdout + fresh.stderr);
    assert.equal(JSON.parse(await readFile(elsewhere, "utf8")).version, 1);
  });

  test("Ctrl-C stops watching, not the install, and says how to go on", async () => {
    // node-01's cloud is READY only after the fleet stopped watching: the Ctrl-C always comes while it installs.
    const rig = await startRig(lab, { joins: 1, scenarios: { "node-01": "never" }, readinessTimeoutSeconds: 600 });
    const fleet = rig.spawnFleet();
    await waitFor("node-01 in readiness", async () => (fleet.output().stdout.includes("[node-01] step: readiness") ? true : undefined), 30_000);
    fleet.proc.kill("SIGINT");
    const run = await fleet.done;
    assert.equal(run.code, 130, run.stdout + run.stderr);
    // The command as the operator can type it again from where they ran it (the tests run `node dist/installer.js`).
    assert.ok(run.stdout.includes(`stopped watching; the installs that run go on on their nodes. To follow them and go on: node dist/installer.js fleet ${rig.planFile}\n`), run.stdout);
    rig.nodes[0]!.cloud.setScenario("ready");
    await waitFor("node-01 done without the fleet", async () => ((await statusOf(rig.nodes[0]!)).phase === "done" ? true : undefined));
    assert.equal((await statusOf(rig.nodes[1]!)).attempt, 0, "no join was started after Ctrl-C");
  });

  test("a closed stdout (`fleet | head -c 1`, a log shipper that died) ends nothing: every node installed, said once on stderr, the exit code the run's", async () => {
    const rig = await startRig(lab, { joins: 2 });
    for (const json of [false, true]) {
      const args = [rig.planFile, ...(json ? ["--json", "--state", join(rig.folder, "json-state.json")] : [])].map((a) => `"${a}"`).join(" ");
      const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const proc = spawn("bash", ["-c", `"${process.execPath}" "${BUNDLE}" fleet ${args} | head -c 1 >/dev/null; exit \${PIPESTATUS[0]}`], { cwd: ROOT, env: { ...process.env, ...rig.env } });
        let stderr = "";
        proc.stderr.on("data", (d) => (stderr += d));
        proc.on("close", (code) => resolve({ code, stderr }));
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr.match(/stdout was closed \(its reader went away\): the fleet goes on without printing; its exit code and .*fleet-report\.json tell how it ended/g)?.length, 1, run.stderr);
      for (const node of rig.nodes) assert.equal((await statusOf(node)).phase, "done", `${node.name}${json ? " (--json)" : ""}`);
    }
    await assertInstalledOnce(rig);
  });

  test("stdout that refuses every write (a log on a full disk: `fleet > /dev/full`) ends nothing: every node installed, said once on stderr, the report written, the lock let go, the exit code the run's", { skip: existsSync("/dev/full") ? undefined : "no /dev/full" }, async () => {
    const rig = await startRig(lab, { joins: 2 });
    const full = openSync("/dev/full", "w");
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const proc = spawn(process.execPath, [BUNDLE, "fleet", rig.planFile], { cwd: ROOT, env: { ...process.env, ...rig.env }, stdio: ["ignore", full, "pipe"] });
      lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
      let stderr = "";
      proc.stderr!.on("data", (d) => (stderr += d));
      proc.on("close", (code) => resolve({ code, stderr }));
    });
    closeSync(full);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr.match(/^installer: cannot write to stdout: ENOSPC: no space left on device[^\n]*: the fleet goes on without printing; its exit code and .*fleet-report\.json tell how it ended$/gm)?.length, 1, run.stderr);
    await assertInstalledOnce(rig);
    assert.equal(JSON.parse(await readFile(join(rig.folder, "fleet-report.json"), "utf8")).exit, 0);
    await assert.rejects(lstat(join(rig.folder, "cluster.fleet-state.json.lock")), { code: "ENOENT" }, "the lock let go");
  });

  for (const [signal, exit] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    test(`${signal === "SIGINT" ? "Ctrl-C" : signal} while the nodes are checked (one slow to answer): says nothing was changed, lets the lock go, exit ${exit}`, async (t) => {
      const rig = await startRig(lab, { joins: 1 });
      const second = rig.nodes[1]!;
      // node-02's installer, as the plan names it, takes the request and never answers: the checks wait on it.
      let asked = () => {};
      const askedOnce = new Promise<void>((resolve) => (asked = resolve));
      const slow = await fakeInstaller(t, () => asked());
      await rig.writePlan((text) => text.replace(`https://127.0.0.1:${second.installer.port}`, slow.url.origin).replace(second.installer.fingerprint.replaceAll(":", "").toLowerCase(), slow.pin));
      const fleet = rig.spawnFleet();
      await askedOnce;
      fleet.proc.kill(signal);
      const run = await fleet.done;
      assert.equal(run.code, exit, run.stdout + run.stderr);
      assert.ok(run.stdout.includes(`stopped (${signal}) while the nodes were checked: nothing was changed on any node`), run.stdout);
      await assert.rejects(readFile(join(rig.folder, "cluster.fleet-state.json.lock")), { code: "ENOENT" }, "the lock goes with its run");
      assert.equal((await statusOf(rig.nodes[0]!)).attempt, 0, "nothing was started");
    });
  }

  test("SIGTERM (a CI job's time-out, kill) stops watching as Ctrl-C does: exit 143, the state file kept, the lock let go, and the next run goes on", async () => {
    const rig = await startRig(lab, { joins: 1, scenarios: { "node-01": "never" }, readinessTimeoutSeconds: 600 });
    const state = join(rig.folder, "runs/it's here.json");
    const fleet = rig.spawnFleet(["--state", state, "--parallel=2", "--rechecks", "0"]);
    await waitFor("node-01 in readiness", async () => (fleet.output().stdout.includes("[node-01] step: readiness") ? true : undefined), 30_000);
    fleet.proc.kill("SIGTERM");
    const run = await fleet.done;
    assert.equal(run.code, 143, run.stdout + run.stderr);
    assert.ok(run.stdout.includes(`stopped watching (SIGTERM); the installs that run go on on their nodes. To follow them and go on: node dist/installer.js fleet ${rig.planFile} --state '${join(rig.folder, "runs/it'\\''s here.json")}' --parallel=2 --rechecks 0\n`), run.stdout);
    await assert.rejects(readFile(`${state}.lock`), { code: "ENOENT" }, "the lock goes with its run");
    assert.equal(JSON.parse(await readFile(state, "utf8")).nodes["node-01"].attempt, 1, "the state file names the attempt it started");
    rig.nodes[0]!.cloud.setScenario("ready");
    const after = await rig.fleet(["--state", state]);
    assert.equal(after.code, 0, after.stdout + after.stderr);
    await assertInstalledOnce(rig);
  });

  test("SIGHUP (the ssh session gone) while the installs run stops watching as Ctrl-C does: exit 129, the lock let go, the attempt in the state file", async () => {
    const rig = await startRig(lab, { joins: 1, scenarios: { "node-01": "never" }, readinessTimeoutSeconds: 600 });
    const fleet = rig.spawnFleet(["--rechecks", "0"]);
    await waitFor("node-01 in readiness", async () => (fleet.output().stdout.includes("[node-01] step: readiness") ? true : undefined), 30_000);
    fleet.proc.kill("SIGHUP");
    const run = await fleet.done;
    assert.equal(run.code, 129, run.stdout + run.stderr);
    assert.match(run.stdout, /stopped watching \(SIGHUP\); the installs that run go on on their nodes\. To follow them and go on: /);
    await assert.rejects(readFile(join(rig.folder, "cluster.fleet-state.json.lock")), { code: "ENOENT" }, "the lock goes with its run");
    assert.equal(JSON.parse(await readFile(join(rig.folder, "cluster.fleet-state.json"), "utf8")).nodes["node-01"].attempt, 1);
  });

  test("a state file on a read-only file system: its lock is refused saying so, exit 2, no node contacted", { skip: process.getuid?.() !== 0 ? "needs root to mount a tmpfs" : undefined }, async (t) => {
    const { folder, plan, env } = await offlinePlan("stratum-fleet-readonly-");
    const mount = join(folder, "readonly");
    await mkdir(mount);
    try {
      await promisify(execFile)("mount", ["-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mount]);
    } catch (err) {
      return t.skip(`mounting a tmpfs is not allowed here (${(err as Error).message.split("\n")[0]})`);
    }
    try {
      const run = await runCli(["fleet", plan, "--state", join(mount, "state.json")], env);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.ok(
        run.stdout.includes(`the state file's lock ${mount}/state.json.lock cannot be written (EROFS: its file system is read-only): remount its file system read-write, or give --state in a folder this user can write\n`),
        run.stdout + run.stderr,
      );
      assert.match(run.stdout, /nothing was changed on any node/);
      assert.doesNotMatch(run.stdout, /node-01\] (phase|step)/, "no node contacted");
    } finally {
      await promisify(execFile)("umount", [mount]);
    }
  });

  test("--state or --support-bundle where no folder can be made (in /proc, a file): one sentence at once, no node contacted — Node's mkdir -p spun for good on /proc", { timeout: 60_000 }, async () => {
    const { folder, plan, env } = await offlinePlan("stratum-fleet-nofolder-");
    await writeFile(join(folder, "a-file"), "");
    const state = await runCli(["fleet", plan, "--state", "/proc/stratum-x/s.json"], env);
    assert.equal(state.code, 2, state.stdout + state.stderr);
    assert.match(state.stdout, /the state file's lock \/proc\/stratum-x\/s\.json\.lock cannot be written \(the state file's folder \/proc\/stratum-x cannot be made: \/proc does not let folders be made in it \(ENOENT\)\)/);
    for (const [dir, why] of [["/proc/stratum-x", "/proc does not let folders be made in it (ENOENT)"], [join(folder, "a-file"), `${folder}/a-file is a file, not a folder (EEXIST)`]]) {
      const bundles = await runCli(["fleet", plan, "--support-bundle", dir!], env);
      assert.equal(bundles.code, 1, bundles.stdout + bundles.stderr);
      assert.equal(bundles.stderr, `installer: the bundles' folder ${dir} cannot be made: ${why}\n`);
    }
  });

  test("temp files a run killed mid-write (kill -9) left beside the state file, its journal and fleet-report.json are removed by the next run that takes its lock; no one else's (a report's of a run still going, under another --state), and not by a dry run", async () => {
    const { folder, plan, env } = await offlinePlan("stratum-fleet-leftovers-");
    // The pid of a process that is gone, as a killed run's is.
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    const own = [`.cluster.fleet-state.json.${gone.pid}.tmp`, `.cluster.fleet-state.json.journal.${gone.pid}.tmp`, `.fleet-report.json.${gone.pid}.tmp`];
    // A report's temp file of a process that runs (this test's own, as another run's under another --state in this folder) is that run's write.
    const others = [".cluster.fleet-state.json.tmp", `.other.fleet-state.json.${gone.pid}.tmp`, `cluster.fleet-state.json.${gone.pid}.tmp`, `.cluster.fleet-state.json.${gone.pid}.tmp.keep`, `.fleet-report.json.${process.pid}.tmp`];
    for (const name of [...own, ...others]) await writeFile(join(folder, name), "{\"version\":1,", { mode: 0o600 });
    const present = async () => (await readdir(folder)).filter((name) => [...own, ...others].includes(name)).sort();
    const dry = await runCli(["fleet", plan, "--dry-run"], env);
    assert.equal(dry.code, 2, dry.stdout + dry.stderr);
    assert.deepEqual(await present(), [...own, ...others].sort(), "a dry run takes no lock, so removes nothing");
    const run = await runCli(["fleet", plan], env);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stdout, /nothing was changed on any node/);
    assert.deepEqual(await present(), [...others].sort(), "the run's own leftovers are gone, the others kept");
  });

  test("--state through a symbolic link is written where the link points, the link kept; --state named fleet-report.json is refused (the report would go over it)", async () => {
    const rig = await startRig(lab, { joins: 1 });
    await mkdir(join(rig.folder, "real"));
    await symlink(join(rig.folder, "real/state.json"), join(rig.folder, "link.json"));
    const run = await rig.fleet(["--state", join(rig.folder, "link.json")]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok((await lstat(join(rig.folder, "link.json"))).isSymbolicLink(), "the link is still a link");
    assert.equal(JSON.parse(await readFile(join(rig.folder, "real/state.json"), "utf8")).version, 1);
    await readFile(join(rig.folder, "real/fleet-report.json"), "utf8");
    const again = await rig.fleet(["--state", join(rig.folder, "link.json")]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /installed already/, "the rerun goes by the state the link points at");
    const { plan } = await offlinePlan("stratum-fleet-reportname-");
    const refused = await runCli(["fleet", plan, "--state", join(rig.folder, "nd/fleet-report.json")]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--state cannot be named fleet-report\.json: the run's report is written beside the state file under that name, over it/);
  });

  test("--state or --support-bundle given empty (`--state \"$STATE\"` with STATE unset): refused as a usage error, no node contacted, no lock made in the current folder", async () => {
    const { folder, plan, env } = await offlinePlan("stratum-fleet-empty-flag-");
    for (const flag of ["--state", "--support-bundle"]) {
      const run = await runCli(["fleet", plan, flag, ""], env, folder);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stderr, new RegExp(`${flag} is empty \\(an unset variable, as in ${flag} "\\$VAR"\\?\\): give it a value, or leave it out`), run.stdout + run.stderr);
      assert.doesNotMatch(run.stdout, /unreachable/, "no node contacted");
    }
    assert.deepEqual((await readdir(folder)).sort(), ["cluster.yaml", "codes"]);
  });

  test("an unusable plan: every problem at once, exit 2, no node contacted", async () => {
    const folder = await tempDir("stratum-fleet-unusable-");
    const plan = join(folder, "cluster.yaml");
    const nodes = [1, 2].map((i) => ({ name: `node-0${i}`, role: i === 1 ? "init" : "join", installer: { port: 9 + i, fingerprint: "ab".repeat(32), code: `CODE${i}` } }));
    await mkdir(join(folder, "codes"));
    await writeFile(join(folder, "codes/node-02"), "CODE2\n");
    await writeFile(plan, planText(nodes as RigNode[], 9).replace("role: join", "role: init").replace("name: lab-1", "name: lab-1\n  nmae: x"));
    const run = await runCli(["fleet", plan], { NODE01_CODE: "CODE1" });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /cluster\.yaml:3:3 cluster\.nmae: "?nmae"? is not a known key \(did you mean name\?\)\n/);
    assert.match(run.stderr, /cluster\.yaml:\d+:\d+ nodes\[1\]\.role: nodes\[1\] \(node-02\) is a second init/);
    assert.match(run.stderr, /2 problems; no node was contacted/);
    assert.equal(run.stdout, "");
  });
});
