import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { watch } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { basename, dirname, join } from "node:path";
import { describe, it } from "node:test";
import { FleetState, StateFileError } from "../../../cli/fleet/state.ts";
import { tempDir } from "../../helpers/installer.ts";

const run = promisify(execFile);

/** Counts the times `path` is renamed into place (each whole write of the state file); `stop()` once every earlier event is in. */
function countWrites(path: string) {
  const folder = dirname(path);
  let writes = 0;
  let settled: (() => void) | undefined;
  const watcher = watch(folder, (event, file) => {
    if (file === "sentinel") settled?.();
    else if (event === "rename" && file === basename(path)) writes += 1;
  });
  return async () => {
    const seen = new Promise<void>((resolve) => (settled = resolve));
    await writeFile(join(folder, "sentinel"), "");
    await seen;
    watcher.close();
    await rm(join(folder, "sentinel"));
    return writes;
  };
}

describe("fleet: the resume file", () => {
  it("records each node's attempt, last event and draft version; a later run reads them, and hears when the plan changed", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const first = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual(first.node("node-01"), {});
    assert.equal(first.previousPlanHash, undefined);
    await first.set("node-01", { etag: '"e1"', attempt: 1, lastSeq: 0 });
    first.seen("node-01", 12);
    await first.flush();
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const written = JSON.parse(await readFile(path, "utf8"));
    assert.deepEqual(written.nodes, { "node-01": { etag: '"e1"', attempt: 1, lastSeq: 12 } });
    assert.equal(written.planHash, "hash-1");

    const same = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual(same.node("node-01"), { etag: '"e1"', attempt: 1, lastSeq: 12 });
    assert.equal(same.previousPlanHash, undefined);
    const changed = await FleetState.open(path, "plan.yaml", "hash-2");
    assert.equal(changed.previousPlanHash, "hash-1");
    assert.equal(changed.node("node-01").lastSeq, 12);
  });

  it("changes made while a write is in flight join one next write; each set() resolves once its change is on disk", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    const stop = countWrites(path);
    const onDisk = async (name: string) => Object.hasOwn(JSON.parse(await readFile(path, "utf8")).nodes, name);
    const first = state.set("node-000", { attempt: 1 });
    const names = Array.from({ length: 100 }, (_, i) => `node-${String(i + 1).padStart(3, "0")}`);
    const found = await Promise.all([first.then(() => onDisk("node-000")), ...names.map((name) => state.set(name, { attempt: 1 }).then(() => onDisk(name)))]);
    assert.deepEqual(found, Array(101).fill(true));
    assert.ok((await stop()) <= 2, "101 changes at once cost at most two writes: the one in flight and the next");
    assert.equal(Object.keys(JSON.parse(await readFile(path, "utf8")).nodes).length, 101);
  });

  it("a file that is not a fleet state file is refused, not overwritten", async () => {
    const path = join(await tempDir("stratum-state-"), "state.json");
    for (const text of ["{", '{"version": 2, "nodes": {}}', "[]"]) {
      await writeFile(path, text);
      await assert.rejects(FleetState.open(path, "plan.yaml", "h"), StateFileError);
      assert.equal(await readFile(path, "utf8"), text);
    }
  });

  it("a state file that cannot be read or written is named, with what to do (a full disk said only ENOSPC)", async (t) => {
    const folder = await tempDir("stratum-state-");
    await writeFile(join(folder, "file"), "");
    await assert.rejects(FleetState.open(join(folder, "file/state.json"), "plan.yaml", "h"), {
      message: `the state file ${folder}/file/state.json cannot be read (ENOTDIR: not a directory, open '${folder}/file/state.json'): move it away, or give another with --state`,
    });
    if (process.getuid?.() !== 0) return t.skip("a full disk needs root to mount a tmpfs");
    const mount = join(folder, "mnt");
    await mkdir(mount);
    await run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mount]);
    try {
      await writeFile(join(mount, "filler"), Buffer.alloc(64 * 1024)).catch(() => undefined);
      const full = await FleetState.open(join(mount, "state.json"), "plan.yaml", "h");
      await assert.rejects(full.set("node-01", { attempt: 1, lastSeq: 1 }), {
        message: `the state file ${mount}/state.json cannot be written (its disk is full): free space there, or give another with --state; run the same command again to go on where this run stopped`,
      });
    } finally {
      await run("umount", ["-l", mount]).catch(() => undefined);
    }
  });
});
