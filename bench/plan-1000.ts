/**
 * `node --import tsx bench/plan-1000.ts [NODES]`: the fleet plan's own checks (before any node is contacted) on a
 * plan of NODES nodes (default 1,000), and on 10 as the baseline: their time and its ratio per node.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPlan } from "../cli/fleet/plan.ts";

const PIN = "ab".repeat(32);
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example";

function plan(nodes: number): string {
  const lines = [
    "cluster:",
    "  name: rack-1",
    "  vip: 10.20.0.10",
    "  common:",
    "    timezone: UTC",
    "    network: { gateway: 10.20.0.1, dns: [10.20.0.2], floatingIpCidrs: [203.0.113.0/24] }",
    `    admin: { sshAuthorizedKeys: ["${KEY}"] }`,
    "nodes:",
  ];
  for (let i = 0; i < nodes; i++) {
    const address = `10.20.${Math.floor((i + 11) / 250)}.${((i + 11) % 250) + 1}`;
    lines.push(
      `  - name: node-${String(i + 1).padStart(4, "0")}`,
      `    installer: https://${address}:9443`,
      `    fingerprint: ${PIN}`,
      `    code: K7QX-M2PD-R4TV`,
      `    role: ${i === 0 ? "init" : "join"}`,
      `    config: { network: { interface: eno1, address: ${address}/16 }, storage: { osdDevices: [/dev/sdb] } }`,
    );
  }
  return `${lines.join("\n").replace("vip: 10.20.0.10", "vip: 10.20.255.250").replaceAll("gateway: 10.20.0.1", "gateway: 10.20.255.254")}\n`;
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
