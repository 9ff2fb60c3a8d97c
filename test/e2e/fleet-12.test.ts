import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { STEPS_OF } from "../../core/attempts/steps/index.ts";
import { startRig } from "../helpers/fleet.ts";
import { harness } from "../helpers/installer.ts";

const lab = harness();

describe("fleet: twelve real installers, piped (issue 25 item 3)", () => {
  test("--parallel 4: one line per change of a node's phase or step, no progress tick, and the summary counts 12 installed", async () => {
    const rig = await startRig(lab, { joins: 11 });
    const run = await rig.fleet(["--parallel", "4"], { timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    for (const node of rig.nodes) {
      const changes = lines.filter((l) => l.startsWith(`[${node.name}] phase: `) || l.startsWith(`[${node.name}] step: `));
      assert.deepEqual(changes, [
        `[${node.name}] phase: installing (attempt 1)`,
        ...STEPS_OF.install.map((step) => `[${node.name}] step: ${step}`),
        `[${node.name}] phase: done`,
      ], run.stdout);
      assert.match(run.stdout, new RegExp(`\\n${node.name} +${node.role} +installed +1 `), "its summary row");
    }
    assert.deepEqual(lines.filter((l) => /firstboot: (configuring|starting)|succeeded$|READY/.test(l)), [], "no step log line, poll or step end");
    assert.match(run.stdout, /12 of 12 nodes installed/);
  });
});
