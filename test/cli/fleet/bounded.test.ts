import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { NodeApi, type Options, type Status } from "../../../cli/fleet/api.ts";
import { type Connected, type Connection, connectFleet } from "../../../cli/fleet/connect.ts";
import { loadPlan } from "../../../cli/fleet/plan.ts";
import { ASK_AT_ONCE } from "../../../cli/fleet/pool.ts";
import { writeReport } from "../../../cli/fleet/report.ts";
import { fakeInstaller, planText } from "../../helpers/fake-node.ts";
import { tempDir } from "../../helpers/installer.ts";

const NODES = 3 * ASK_AT_ONCE;

/** NODES fake installers, all answering `handler`, and the most TCP connections they held open at once, together. */
async function fleetOf(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  let open = 0;
  let most = 0;
  const nodes = await Promise.all(
    Array.from({ length: NODES }, async () => {
      const node = await fakeInstaller(t, handler);
      node.server.on("connection", (socket) => {
        most = Math.max(most, (open += 1));
        socket.on("close", () => (open -= 1));
      });
      return node;
    }),
  );
  return { nodes, most: () => most };
}

/**
 * Closes each connection after its answer: what is counted is the nodes asked at once, not the connections the client
 * keeps idle between two requests (at most MAX_IDLE over every origin: test/core/http/client.test.ts).
 */
const refuse = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(401, { "content-type": "application/problem+json", connection: "close" }).end(JSON.stringify({ code: "UNAUTHORIZED", detail: "wrong code" }));

describe("fleet: the connections held open stay bounded whatever the plan's size", () => {
  it(`the checks before anything changes ask at most ${ASK_AT_ONCE} nodes at once`, async (t) => {
    const fleet = await fleetOf(t, refuse);
    const file = join(await tempDir("stratum-bounded-"), "cluster.yaml");
    await writeFile(file, planText(fleet.nodes));
    const plan = await loadPlan(file, {});
    assert.ok(plan.ok, JSON.stringify(!plan.ok && plan.problems.slice(0, 3)));
    const connection = await connectFleet(plan.loaded);
    assert.equal(connection.failures.length, NODES);
    assert.ok(fleet.most() <= ASK_AT_ONCE, `${fleet.most()} connections open at once`);
  });

  it(`the report asks at most ${ASK_AT_ONCE} nodes at once`, async (t) => {
    const fleet = await fleetOf(t, refuse);
    const folder = await tempDir("stratum-bounded-");
    const file = join(folder, "cluster.yaml");
    await writeFile(file, planText(fleet.nodes));
    const plan = await loadPlan(file, {});
    assert.ok(plan.ok);
    const connected = plan.loaded.nodes.map((node): Connected => ({ node, api: new NodeApi(node.access), status: {} as Status, options: {} as Options, draft: { source: "structured", valid: true, errors: [], updatedAt: null }, etag: "" }));
    const connection: Connection = { connected, failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1" };
    await writeReport(join(folder, "fleet-report.json"), plan.loaded, connection, new Map(), 0, []);
    assert.ok(fleet.most() <= ASK_AT_ONCE, `${fleet.most()} connections open at once`);
  });
});
