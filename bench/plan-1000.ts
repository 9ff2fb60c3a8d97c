/**
 * `node --import tsx bench/plan-1000.ts [NODES]`: the fleet plan's own checks (before any node is contacted) on a
 * plan of NODES nodes (default 1,000), and on 10 as the baseline: their time and its ratio per node.
 */
import "./own-tmp.ts";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPlan } from "../cli/fleet/plan.ts";
import { rackAddress, rackPlan } from "./rack-plan.ts";

const PIN = "ab".repeat(32);

function plan(nodes: number): string {
  return rackPlan(
    Array.from({ length: nodes }, (_, i) => ({ name: `node-${String(i + 1).padStart(4, "0")}`, installer: `https://${rackAddress(i)}:9443`, fingerprint: PIN, code: `K7QX-M2PD-${String(i).padStart(4, "0")}` })),
  );
}

async function timed(nodes: number): Promise<number> {
  const file = join(await mkdtemp(join(tmpdir(), "stratum-plan-bench-")), "plan.yaml");
  await writeFile(file, plan(nodes));
  await loadPlan(file, {});
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const result = await loadPlan(file, {});
    runs.push(performance.now() - started);
    if (!result.ok) throw new Error(`the ${nodes}-node plan has problems: ${JSON.stringify(result.problems.slice(0, 3))}`);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

const nodes = Number(process.argv[2] ?? 1000);
const base = await timed(10);
const big = await timed(nodes);
console.log(`plan checks, 10 nodes: ${base.toFixed(1)} ms; ${nodes} nodes: ${big.toFixed(1)} ms (target < 1000 ms); per node ${(big / nodes).toFixed(2)} ms vs ${(base / 10).toFixed(2)} ms at 10`);
