/**
 * `npm run fleet:sim -- --nodes 1000 [--parallel 10] [--attempt-ms 3000] [--per-process 250] [--profile DIR]`: the real fleet CLI
 * (dist/installer.js fleet PLAN) against simulated installers (bench/sim/), measured by bench/fleet-driver.ts:
 * its peak RSS, CPU time, most open sockets and state-file bytes (its journal's included), each per node. Runs 50
 * nodes first as the baseline, then each size of --nodes (a list, e.g. 200,1000), each on fresh simulated nodes, the
 * same --parallel; with --profile, the driver's CPU profiles (--cpu-prof) go to DIR.
 * Target (issue 25): at 1,000 nodes the RSS and CPU per node no higher than at 50.
 */
import "./own-tmp.ts";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { driverCpuMs, type FleetDriverRun, runFleetDriver } from "./fleet-driver.ts";
import { rackPlan } from "./rack-plan.ts";
import { startSimulation } from "./sim/start.ts";

const BASELINE = 50;

interface Row {
  nodes: number;
  run: FleetDriverRun;
}

async function measure(nodes: number, parallel: number, attemptMs: number, perProcess: number, profile?: string): Promise<Row> {
  const sim = await startSimulation(nodes, perProcess, attemptMs);
  const folder = await mkdtemp(join(tmpdir(), "stratum-fleet-sim-"));
  try {
    const plan = join(folder, "plan.yaml");
    await writeFile(plan, rackPlan(sim.nodes.map((n) => ({ name: n.name, installer: `https://127.0.0.1:${n.port}`, fingerprint: n.pin, code: n.code }))));
    const run = await runFleetDriver({ plan, args: ["--parallel", String(parallel)], timeoutMs: 3_600_000, ...(profile ? { nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profile] } : {}) });
    if (run.code !== 0) throw new Error(`the fleet of ${nodes} ended with ${run.code ?? run.signal}: ${run.stderr.slice(-2000)}${run.stdout.slice(-2000)}`);
    return { nodes, run };
  } finally {
    sim.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");

function table(rows: Row[], parallel: number): string[] {
  const base = rows[0]!;
  const ratio = (f: (r: Row) => number, r: Row) => (f(r) / f(base)).toFixed(2);
  const rssPerNode = (r: Row) => r.run.peakRssKiB / r.nodes;
  const cpuPerNode = (r: Row) => driverCpuMs(r.run) / r.nodes;
  const lines = [
    "| nodes | --parallel | wall | peak RSS | RSS / node (× at 50) | CPU | CPU / node (× at 50) | peak sockets (/ node) | state writes (whole) | state bytes, journal included (/ node) | slowest request |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const { run } = r;
    lines.push(
      `| ${r.nodes} | ${parallel} | ${(run.wallMs / 1000).toFixed(1)} s | ${(run.peakRssKiB / 1024).toFixed(1)} MiB | ${rssPerNode(r).toFixed(0)} KiB (${ratio(rssPerNode, r)}×) | ${(driverCpuMs(run) / 1000).toFixed(2)} s | ${cpuPerNode(r).toFixed(1)} ms (${ratio(cpuPerNode, r)}×) | ${run.maxOpenSockets} (${(run.maxOpenSockets / r.nodes).toFixed(2)}) | ${run.stateWrites} | ${(run.stateBytes / 1024).toFixed(0)} KiB (${(run.stateBytes / r.nodes / 1024).toFixed(1)} KiB) | ${run.slowestRequest ? `${run.slowestRequest.ms.toFixed(0)} ms ${run.slowestRequest.path.replace(/\?.*/, "")}` : "-"} |`,
    );
  }
  const last = rows.at(-1)!;
  const met = (f: (r: Row) => number) => (f(last) <= f(base) ? "met" : "**missed**");
  lines.push("", `At ${last.nodes} nodes: RSS per node ${ratio(rssPerNode, last)}× the ${BASELINE}-node figure (${met(rssPerNode)}), CPU per node ${ratio(cpuPerNode, last)}× (${met(cpuPerNode)}); target ≤ 1×.`);
  return lines;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { nodes: { type: "string", default: "1000" }, parallel: { type: "string", default: "10" }, "attempt-ms": { type: "string", default: "3000" }, "per-process": { type: "string", default: "250" }, profile: { type: "string" } } });
  const sizes = [BASELINE, ...values.nodes.split(",").map(Number).filter((n) => n !== BASELINE)];
  if (sizes.some((n) => !Number.isInteger(n) || n < 2)) throw new Error(`--nodes takes node counts ≥ 2, e.g. 200,1000; got ${values.nodes}`);
  const parallel = Number(values.parallel);
  const attemptMs = Number(values["attempt-ms"]);
  const perProcess = Number(values["per-process"]);
  console.log(`fleet:sim: Node ${process.version}, ${sizes.join(", ")} simulated nodes, --parallel ${parallel}, attempts of ${attemptMs} ms; load average ${load()}`);
  const rows: Row[] = [];
  for (const nodes of sizes) {
    const row = await measure(nodes, parallel, attemptMs, perProcess, values.profile);
    rows.push(row);
    console.log(`fleet:sim: ${nodes} nodes done in ${(row.run.wallMs / 1000).toFixed(1)} s (probe's own sampling ${row.run.probeMs.toFixed(0)} ms, left out of CPU); state file ${row.run.stateWrites} whole writes and ${(row.run.journalBytes / 1024).toFixed(0)} KiB of journal, ${(row.run.stateBytes / 1024).toFixed(0)} KiB in all; load average ${load()}`);
  }
  for (const line of table(rows, parallel)) console.log(line);
}

main().catch((error: unknown) => {
  console.error(`fleet:sim: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
