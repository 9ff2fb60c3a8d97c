import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { rackPlan } from "../../../bench/rack-plan.ts";
import { SimNode } from "../../../bench/sim/node.ts";
import { connectFleet } from "../../../cli/fleet/connect.ts";
import { loadPlan } from "../../../cli/fleet/plan.ts";
import { ASK_AT_ONCE } from "../../../cli/fleet/pool.ts";
import { writeReport } from "../../../cli/fleet/report.ts";
import { fakeInstaller } from "../../helpers/fake-node.ts";
import { tempDir } from "../../helpers/installer.ts";

/** `count` simulated installers (bench/sim) and a plan of them; `open()` says the most TLS connections they held at once since the last call. */
async function rack(t: TestContext, count: number) {
  let open = 0;
  let most = 0;
  const nodes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = `node-${String(i + 1).padStart(4, "0")}`;
      const sim = new SimNode({ name, role: i === 0 ? "init" : "join", code: `code-${i}`, attemptMs: 1000 });
      const node = await fakeInstaller(t, (req, res) => void sim.handle(req, res));
      node.server.on("secureConnection", (socket) => {
        most = Math.max(most, ++open);
        socket.once("close", () => (open -= 1));
      });
      return { name, installer: node.url.origin, fingerprint: node.pin, code: `code-${i}` };
    }),
  );
  const file = join(await tempDir("stratum-connect-"), "plan.yaml");
  await writeFile(file, rackPlan(nodes));
  const loaded = await loadPlan(file, {});
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.problems.slice(0, 3)));
  const since = () => {
    const held = most;
    most = open;
    return held;
  };
  return { loaded: loaded.loaded, file, most: since };
}

describe("fleet: asking every node", () => {
  it("connecting and the report ask a rack a bounded number of nodes at a time: the driver's sockets do not grow with the rack", async (t) => {
    const { loaded, file, most } = await rack(t, 3 * ASK_AT_ONCE);
    const connection = await connectFleet(loaded);
    assert.deepEqual([connection.connected.length, connection.failures, connection.problems, connection.draftProblems], [3 * ASK_AT_ONCE, [], [], []]);
    // Each node is asked at most two things at once (its options and its draft).
    const connecting = most();
    await writeReport(join(file, "../fleet-report.json"), loaded, connection, new Map(), 0, []);
    const reporting = most();
    assert.deepEqual([connecting <= 2 * ASK_AT_ONCE, reporting <= 2 * ASK_AT_ONCE], [true, true], `held at once: ${connecting} connecting, ${reporting} for the report`);
  });
});
