import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { composeDraft } from "../../../cli/fleet/compose.ts";
import { crossNodeProblems } from "../../../cli/fleet/plan-checks.ts";
import type { Plan } from "../../../cli/fleet/plan-schema.ts";

/** A rack of `count` nodes, every address in one /16; `twin` gives its last node the first one's installer, name and address. */
function rack(count: number, twin = false): Plan {
  const address = (i: number) => `10.20.${Math.floor((i + 11) / 250)}.${((i + 11) % 250) + 1}`;
  const nodes = Array.from({ length: count }, (_, i) => {
    const j = twin && i === count - 1 ? 0 : i;
    return { name: `node-${j}`, installer: `https://${address(j)}:9443`, fingerprint: "ab".repeat(32), code: "K7QX-M2PD-R4TV", role: i === 0 ? "init" : "join", config: { network: { interface: "eno1", address: `${address(j)}/16` } } } as const;
  });
  return { cluster: { name: "rack-1", vip: "10.20.255.250", common: { network: { gateway: "10.20.255.254", floatingIpCidrs: ["203.0.113.0/24"] } } }, nodes } as Plan;
}

const check = (plan: Plan) => crossNodeProblems(plan, plan.nodes.map((_, i) => i), new Map(plan.nodes.map((node, i) => [i, composeDraft(plan, node)])));


describe("fleet: the plan's checks across nodes, at a rack's size", () => {
  it("a name, installer or address given twice is named at its second node", () => {
    const problems = check(rack(5, true)).map((p) => `${p.path.join(".")}: ${p.message}`);
    assert.deepEqual(problems, [
      "nodes.4.name: node-0 is also nodes[0] (node-0)'s name",
      "nodes.4.installer: https://10.20.0.12:9443 is also nodes[0] (node-0)'s installer",
      "nodes.4.config.network.address: 10.20.0.12/16 is also nodes[0] (node-0)'s address",
    ]);
  });
});
