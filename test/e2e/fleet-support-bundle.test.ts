import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type FleetRig, startRig } from "../helpers/fleet.ts";
import { fakeInstaller } from "../helpers/fake-node.ts";
import { harness, tempDir } from "../helpers/installer.ts";
import { extractBundle } from "../helpers/support-bundle.ts";
import { fill, noTmpfs, tmpfsFor } from "../helpers/full-disk.ts";

const lab = harness();

interface IndexEntry {
  node: string;
  installer: string;
  file?: string;
  size?: number;
  sha256?: string;
  error?: string;
  detail?: string;
}

async function readIndex(dir: string): Promise<{ nodes: IndexEntry[]; gathered: number; missing: number }> {
  return JSON.parse(await readFile(join(dir, "index.json"), "utf8"));
}

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);
const hint = (rig: FleetRig) => `[fleet] gather what happened: node dist/installer.js fleet ${rig.planFile} --support-bundle support-bundles`;

describe("fleet --support-bundle: what happened on every node", () => {
  test("a failed run ends with the command; it gathers every node's bundle, each its own node's (--parallel 3)", async () => {
    const rig = await startRig(lab, { joins: 2, failing: ["node-02"] });
    const run = await rig.fleet();
    assert.equal(run.code, 1, run.stdout + run.stderr);
    // The command that gathers, then the way on (the run again, as it was given).
    const [gatherLine, againLine] = run.stdout.trimEnd().split("\n").slice(-2);
    assert.equal(gatherLine, hint(rig));
    assert.ok(againLine!.startsWith(`[fleet] once what the errors above name is fixed, run it again: nodes installed are left alone, the others go on from where they are: node dist/installer.js fleet ${rig.planFile}`), againLine);

    const dir = join(await tempDir("stratum-fleet-bundles-"), "what-happened");
    const gather = await rig.fleet(["--support-bundle", dir, "--parallel", "3"]);
    assert.equal(gather.code, 0, gather.stdout + gather.stderr);
    assert.match(lastLine(gather.stdout)!, new RegExp(`^\\[fleet\\] 3 of 3 support bundles gathered in ${dir}; index: ${dir}/index\\.json$`));
    const index = await readIndex(dir);
    assert.deepEqual([index.gathered, index.missing], [3, 0]);
    assert.deepEqual(index.nodes.map((e) => [e.node, e.file]), rig.nodes.map((n) => [n.name, `${n.name}.tar.gz`]));
    assert.deepEqual((await readdir(dir)).sort(), ["index.json", ...rig.nodes.map((n) => `${n.name}.tar.gz`)]);
    for (const [i, node] of rig.nodes.entries()) {
      const bytes = await readFile(join(dir, `${node.name}.tar.gz`));
      assert.deepEqual([index.nodes[i]!.size, index.nodes[i]!.sha256], [bytes.length, createHash("sha256").update(bytes).digest("hex")]);
      const { files } = await extractBundle(bytes);
      const manifest = JSON.parse(files.get("manifest.json")!);
      const status = (await node.installer.request("/v1/installer/status")).json;
      assert.equal(manifest.phase, status.phase, node.name);
      assert.equal(JSON.parse(files.get("status.json")!).hostname, node.name, "the bundle of the node the index names");
      for (const n of rig.nodes) assert.ok(![...files.values()].some((text) => text.includes(n.installer.code)), "no install code in a bundle");
    }
  });

  test("a node stopped before the run and one whose certificate is not the plan's: the checks name the command only once a node is out of reach; both are named in the index; the others still come; exit 1", async () => {
    const rig = await startRig(lab, { joins: 2 });
    const [, wrong, stopped] = rig.nodes;
    await rig.writePlan((text) => text.replace(wrong!.installer.fingerprint.replaceAll(":", "").toLowerCase(), "ab".repeat(32)));
    const refused = await rig.fleet();
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    // The refused node's bundle is asked with the same certificate, and refused the same way; the others had no trouble.
    assert.ok(!refused.stdout.includes("gather what happened"), `a refusal alone: no command to gather bundles\n${refused.stdout}`);
    await stopped!.installer.stop();
    const outOfReach = await rig.fleet();
    assert.equal(outOfReach.code, 2, outOfReach.stdout + outOfReach.stderr);
    assert.equal(lastLine(outOfReach.stdout), hint(rig), "checks that found a node out of reach end with the command");

    const dir = await tempDir("stratum-fleet-bundles-");
    const gather = await rig.fleet(["--support-bundle", dir]);
    assert.equal(gather.code, 1, gather.stdout + gather.stderr);
    assert.match(gather.stdout, /\[node-02\] error: no support bundle \(wrong-certificate\): .* not the plan's AB:AB:.*: refused, nothing was sent/);
    assert.match(gather.stdout, /\[node-03\] error: no support bundle \(unreachable\): .* is unreachable: connect ECONNREFUSED/);
    assert.match(lastLine(gather.stdout)!, /^\[fleet\] error: 1 of 3 support bundles gathered in /);
    const index = await readIndex(dir);
    assert.deepEqual(index.nodes.map((e) => [e.node, e.file ?? e.error]), [["node-01", "node-01.tar.gz"], ["node-02", "wrong-certificate"], ["node-03", "unreachable"]]);
    assert.deepEqual((await readdir(dir)).sort(), ["index.json", "node-01.tar.gz"]);
    const { files } = await extractBundle(join(dir, "node-01.tar.gz"));
    assert.ok(files.has("manifest.json"));

    await rig.writePlan((text) => text.replace("role: init", "role: founder"));
    const unusable = await rig.fleet();
    assert.equal(unusable.code, 2);
    assert.ok(!(unusable.stdout + unusable.stderr).includes("gather what happened"), "a plan that contacted no node: nothing to gather");
  });

  for (const [signal, exit] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    test(`${signal === "SIGINT" ? "Ctrl-C" : signal} while a bundle comes: that download stops (no temp file), the next is not asked, the index still names every node; exit ${exit}`, async (t) => {
      const rig = await startRig(lab, { joins: 2 });
      const second = rig.nodes[1]!;
      // node-02's installer, as the plan names it, sends the start of a bundle and then nothing: the signal comes while it waits.
      let asked = () => {};
      const askedForBundle = new Promise<void>((resolve) => (asked = resolve));
      const stuck = await fakeInstaller(t, (_req, res) => {
        res.writeHead(200, { "content-type": "application/gzip" }).write(Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
        asked();
      });
      await rig.writePlan((text) =>
        text.replace(`https://127.0.0.1:${second.installer.port}`, stuck.url.origin).replace(second.installer.fingerprint.replaceAll(":", "").toLowerCase(), stuck.pin),
      );
      const dir = join(await tempDir("stratum-fleet-bundles-"), "stopped");
      const fleet = rig.spawnFleet(["--support-bundle", dir]);
      await askedForBundle;
      fleet.proc.kill(signal);
      const run = await fleet.done;
      assert.equal(run.code, exit, run.stdout + run.stderr);
      assert.match(lastLine(run.stdout)!, new RegExp(`^\\[fleet\\] error: 1 of 3 support bundles gathered in ${dir} \\(stopped\\); index: ${dir}/index\\.json$`));
      const index = await readIndex(dir);
      assert.deepEqual(index.nodes.map((e) => [e.node, e.file ?? e.error]), [["node-01", "node-01.tar.gz"], ["node-02", "stopped"], ["node-03", "stopped"]]);
      assert.deepEqual((await readdir(dir)).sort(), ["index.json", "node-01.tar.gz"], "no temp file, no half bundle");
    });
  }
  test("bundles into a folder on a full disk: each node is said to be not written there (not unreachable), with what to do; once space frees the same command gathers them", { skip: noTmpfs }, async (t) => {
    const rig = await startRig(lab, { joins: 1 });
    const mount = join(await tempDir("stratum-fleet-bundles-"), "mnt");
    if (!(await tmpfsFor(t, mount, "256k"))) return;
    const dir = join(mount, "bundles");
    const free = fill(mount);
    const full = await rig.fleet(["--support-bundle", dir]);
    await free();
    assert.equal(full.code, 1, full.stdout + full.stderr);
    const said = full.stdout.split("\n").filter((line) => /^\[node-0\d\]/.test(line)).sort();
    assert.deepEqual(said, rig.nodes.map((node) => `[${node.name}] error: no support bundle (not-written): ${dir}/${node.name}.tar.gz cannot be written (ENOSPC: no space left on its file system): free space on its file system, or give --support-bundle another folder`));
    assert.equal(lastLine(full.stdout), `[fleet] error: 0 of 2 support bundles gathered in ${dir}; no index: ${dir}/index.json cannot be written (ENOSPC: no space left on its file system): free space on its file system, or give --support-bundle another folder`);
    assert.equal(full.stderr, "");
    assert.deepEqual(await readdir(dir), [], "no temp file left holding space");
    const gather = await rig.fleet(["--support-bundle", dir]);
    assert.equal(gather.code, 0, gather.stdout + gather.stderr);
    assert.deepEqual((await readdir(dir)).sort(), ["index.json", ...rig.nodes.map((n) => `${n.name}.tar.gz`)]);
  });
});
