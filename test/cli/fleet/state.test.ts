import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FleetState, StateFileError } from "../../../cli/fleet/state.ts";
import { tempDir } from "../../helpers/installer.ts";

const run = promisify(execFile);

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
