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
      const own = lines.filter((l) => l.startsWith(`[${node.name}] `));
      const changes = own.filter((l) => l.startsWith(`[${node.name}] phase: `) || l.startsWith(`[${node.name}] step: `));
      assert.deepEqual(changes, [
        `[${node.name}] phase: installing (attempt 1)`,
        ...STEPS_OF.install.map((step) => `[${node.name}] step: ${step}`),
        `[${node.name}] phase: done`,
      ], run.stdout);
      // Beside its changes, a node has its two notes; an event stream resumed after a break is a line of its own (not a tick).
      const resumed = (l: string) => l.startsWith(`[${node.name}] warning: the event stream broke (`);
      assert.deepEqual(
        own.filter((l) => !changes.includes(l) && !resumed(l)).sort(),
        [`[${node.name}] draft written (hyperconverged-${node.role})`, `[${node.name}] install attempt 1 started`].sort(),
        run.stdout,
      );
    }
    assert.deepEqual(lines.filter((l) => /firstboot: (configuring|starting)|succeeded$|READY/.test(l)), [], "no step log line, poll or step end");
    // The summary after the last blank line: its header, one row a node, each installed in attempt 1, and the count.
    const summary = lines.slice(lines.lastIndexOf("") + 1);
    assert.match(summary[0]!, /^NODE +ROLE +OUTCOME +ATTEMPT/, run.stdout);
    assert.deepEqual(
      summary.slice(1, -1).map((row) => row.split(/ +/).slice(0, 4).join(" ")).sort(),
      rig.nodes.map((node) => `${node.name} ${node.role} installed 1`).sort(),
    );
    assert.match(summary.at(-1)!, /^12 of 12 nodes installed; report: \S+fleet-report\.json$/);
  });
});
