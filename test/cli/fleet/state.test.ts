import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FleetState, StateFileError } from "../../../cli/fleet/state.ts";
import { tempDir } from "../../helpers/installer.ts";

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
});
