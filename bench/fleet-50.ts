/**
 * `npm run fleet:50 [-- --nodes N --parallel P --kill-at K]`: N real installers from the built bundle on loopback
 * (each with its own state dir, payload, firstboot and simulated cloud; the init node's cloud answers the joins'
 * join checks), one plan of one init and N−1 joins, installed by `fleet PLAN --parallel P`. Prints the driver's
 * figures (bench/fleet-driver.ts) beside the ideal wall time from the nodes' own attempt spans, and a row for
 * bench/RESULTS.md. With --kill-at K the driver is killed -9 once K nodes are done and run again: every node must
 * end installed with its firstboot run exactly once. With --baseline OTHER/installer.js, rounds (--rounds, default 2)
 * of that bundle (its fleet and its installers) then this build, each on fresh installers: a before/after in one run
 * (before 2026-12-05 20:00 UTC the baseline's fleet drove this build's installers). With --image on the installers
 * run from a copy of the bundle with its image's code cache beside it (`installer.js prepare-image`), as on a rescue
 * image prepared with it; with --image both, rounds (--rounds) without and with it (the same driver).
 * `--driver-node-args "--flag …"` starts the driver's Node with those flags (an experiment's V8 flags, say);
 * DRIVER_NODE=PROGRAM runs the driver with PROGRAM in Node's place (a wrapper that execs `perf record … node "$@"`
 * or `strace -c -f … node "$@"`, to see where its system time goes).
 */
import "./own-tmp.ts";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { describeRun, driverCpuMs, type FleetDriverRun, idealWallMs, runFleetDriver } from "./fleet-driver.ts";
import { type RigNode, startRig } from "../test/helpers/fleet.ts";
import { BUNDLE, startInstaller } from "../test/helpers/installer.ts";

const { values } = parseArgs({ options: { nodes: { type: "string", default: "50" }, parallel: { type: "string", default: "10" }, "kill-at": { type: "string" }, profile: { type: "string" }, baseline: { type: "string" }, rounds: { type: "string", default: "2" }, image: { type: "string" }, "driver-node-args": { type: "string" } } });
const NODES = Number(values.nodes);
const PARALLEL = Number(values.parallel);
const KILL_AT = values["kill-at"] === undefined ? undefined : Number(values["kill-at"]);
const TAG = `fleet:${NODES}`;

/** A copy of the build's bundle with its code cache beside it, made by this Node (`installer.js prepare-image`). */
function imageBundle(): string {
  const folder = mkdtempSync(join(tmpdir(), "stratum-image-"));
  const bundle = join(folder, "installer.js");
  copyFileSync(BUNDLE, bundle);
  writeFileSync(join(folder, "package.json"), '{"type":"commonjs"}\n');
  execFileSync(process.execPath, [bundle, "prepare-image"], { stdio: "ignore" });
  return bundle;
}
const IMAGE = values.image === undefined ? undefined : imageBundle();

const say = (line: string) => console.log(`${TAG}: ${line}`);
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Span {
  start: number;
  end: number;
}

/** Each of the node's attempts, as the node itself recorded it (GET /install/attempts). */
async function attemptSpans(node: RigNode): Promise<Span[]> {
  const reply = await node.installer.request("/v1/installer/install/attempts");
  const attempts = (reply.json as { attempts: Array<{ startedAt: string; finishedAt?: string }> }).attempts;
  return attempts.map((a) => ({ start: Date.parse(a.startedAt), end: Date.parse(a.finishedAt ?? a.startedAt) }));
}

const spanMs = (spans: Span[]) => spans.reduce((sum, a) => sum + (a.end - a.start), 0);

/** Where the wall time went beside the nodes' attempts: before the init's, between the init's and the joins', after the last. */
function breakdown(run: FleetDriverRun, spans: Span[][]): string {
  const [init, ...joins] = spans;
  const initStart = Math.min(...init!.map((a) => a.start));
  const initEnd = Math.max(...init!.map((a) => a.end));
  const firstJoin = Math.min(...joins.flat().map((a) => a.start));
  const lastEnd = Math.max(...spans.flat().map((a) => a.end));
  const exit = run.startedAtMs + run.wallMs;
  // Each join's wait for a free worker past its predecessor's end (what the pool would hand over at once), in three
  // legs seen from the driver's output: the predecessor's end → its "phase: done" line → this node's "install attempt
  // N started" line (its draft was written before its turn) and this node's attempt start, as the node recorded it.
  const at = (node: string, what: string) => run.startedAtMs + (run.lines.find((l) => l.line.startsWith(`[${node}] ${what}`))?.ms ?? NaN);
  const ends: Array<{ node: string; end: number }> = [];
  const legs = joins.map((spans, i) => {
    const node = `node-${String(i + 2).padStart(2, "0")}`;
    const start = Math.min(...spans.map((a) => a.start));
    let freed = { node: "node-01", end: initEnd };
    if (ends.length >= PARALLEL) freed = ends.splice(ends.indexOf(ends.reduce((a, b) => (b.end < a.end ? b : a))), 1)[0]!;
    ends.push({ node, end: Math.max(...spans.map((a) => a.end)) });
    const done = at(freed.node, "phase: done");
    const started = at(node, "install attempt");
    return [start - freed.end, done - freed.end, started - done, start - done];
  });
  const median = (k: number) => {
    const sorted = legs.map((l) => l[k]!).filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
    return `${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms (max ${sorted.at(-1)?.toFixed(0)})`;
  };
  const handoff = `handoff from a node's end to the next node's start: median ${median(0)}; of it, end → "done" line ${median(1)}, "done" → next "install attempt … started" ${median(2)} (→ its attempt start as the node recorded it ${median(3)})`;
  const first = run.firstRequestMs === null ? "" : ` (the driver's first request ${s(run.firstRequestMs)} after its start)`;
  return `spawn → init attempt ${s(initStart - run.startedAtMs)}${first}; init done → first join attempt ${s(firstJoin - initEnd)}; joins ${s(lastEnd - firstJoin)}; last attempt done → exit ${s(exit - lastEnd)}; ${handoff}`;
}

/** One rig of NODES fresh installers, installed by the fleet of `bundle` (default the build's); true when every node installed with one firstboot. */
async function measure(bundle: string | undefined, label: string, installers?: string): Promise<{ ok: boolean; ratio?: number; cpuShare: number }> {
  const cleanups: Array<() => unknown> = [];
  const lab = {
    defer: (cleanup: () => unknown) => void cleanups.push(cleanup),
    start: async (options?: Parameters<typeof startInstaller>[0]) => {
      const installer = await startInstaller({ ...options, ...(installers ? { bundle: installers } : {}) });
      cleanups.push(() => installer.kill9());
      return installer;
    },
  };
  try {
    say(`${label}Node ${process.version}, ${cpus().length} cores, load ${load()}; starting ${NODES} installers`);
    const upAt = performance.now();
    const rig = await startRig(lab, { joins: NODES - 1, scenarios: Object.fromEntries(Array.from({ length: NODES }, (_, i) => [`node-${String(i + 1).padStart(2, "0")}`, "progress"])) });
    say(`${NODES} installers up in ${s(performance.now() - upAt)}; plan ${rig.planFile}; load ${load()}`);
    const initOrigin = `https://127.0.0.1:${rig.nodes[0]!.installer.port}`;
    const fleet = (killAt?: number) =>
      runFleetDriver({
        plan: rig.planFile,
        args: ["--parallel", String(PARALLEL)],
        env: rig.env, ...(process.env.DRIVER_NODE ? { node: process.env.DRIVER_NODE } : {}),
        ...(bundle ? { bundle } : {}),
        ...(values.profile ? { nodeArgs: ["--cpu-prof", "--cpu-prof-dir", values.profile] } : values["driver-node-args"] ? { nodeArgs: values["driver-node-args"].split(" ") } : {}),
        timeoutMs: 30 * 60_000,
        ...(killAt ? { killWhen: ({ stdout }) => (stdout.match(/\] phase: done$/gm)?.length ?? 0) >= killAt } : {}),
      });

    const runs: FleetDriverRun[] = [];
    if (KILL_AT) {
      const killed = await fleet(KILL_AT);
      const done = killed.stdout.match(/\] phase: done$/gm)?.length ?? 0;
      say(`kill -9 of the driver once ${done} nodes were done (after ${s(killed.wallMs)}, signal ${killed.signal}); load ${load()}`);
      for (const line of describeRun(killed, initOrigin)) say(`  killed run: ${line}`);
      runs.push(killed);
    }
    const run = await fleet();
    runs.push(run);
    const summary = run.stdout.slice(run.stdout.lastIndexOf("\nNODE "));
    say(summary.trim().split("\n").at(-1)!);
    if (run.code !== 0) console.log(run.stdout.slice(-8000), run.stderr.slice(-4000));

    const spans = await Promise.all(rig.nodes.map(attemptSpans));
    const ideal = idealWallMs(spanMs(spans[0]!), spans.slice(1).map(spanMs), PARALLEL);
    for (const line of describeRun(run, initOrigin)) say(line);
    if (!KILL_AT) {
      const joinSpans = spans.slice(1).map(spanMs).sort((a, b) => a - b);
      say(`ideal ${s(ideal)} (init ${s(spanMs(spans[0]!))}, joins ${PARALLEL} at a time, their median span ${s(joinSpans[Math.floor(joinSpans.length / 2)]!)}); wall/ideal ${(run.wallMs / ideal).toFixed(2)}`);
      say(breakdown(run, spans));
    }

    const statuses = await Promise.all(rig.nodes.map(async (n) => (await n.installer.request("/v1/installer/status")).json.phase as string));
    const firstboots = await Promise.all(rig.nodes.map((n) => n.firstbootRuns()));
    const notDone = rig.nodes.filter((_, i) => statuses[i] !== "done").map((n) => n.name);
    const notOnce = rig.nodes.filter((_, i) => firstboots[i] !== 1).map((n, i) => `${n.name}×${firstboots[i]}`);
    const counts = new Map<number, number>();
    for (const runsOf of firstboots) counts.set(runsOf, (counts.get(runsOf) ?? 0) + 1);
    say(`installed ${NODES - notDone.length} of ${NODES}${notDone.length ? ` (not: ${notDone.join(", ")})` : ""}; firstboot runs per node: ${[...counts].map(([k, n]) => `${n} nodes ran it ${k}×`).join(", ")}${notOnce.length ? ` (${notOnce.join(", ")})` : ""}`);
    say(`load after ${load()}`);

    const cpu = (r: FleetDriverRun) => `${((100 * driverCpuMs(r)) / r.wallMs).toFixed(1)} %`;
    const slow = (ms?: number) => (ms === undefined ? "-" : `${ms.toFixed(0)} ms`);
    say(
      `${label}row: | ${NODES}${KILL_AT ? ` (kill -9 at ${KILL_AT}, then again)` : ""} | ${process.version} | ${s(run.wallMs)} | ${KILL_AT ? "- | -" : `${s(ideal)} | ${(run.wallMs / ideal).toFixed(2)}×`} | ${(run.peakRssKiB / 1024).toFixed(0)} MiB | ${cpu(run)} | ${runs.map((r) => r.stateWrites).join(" + ")} whole writes, ${runs.map((r) => `${(r.stateBytes / 1024).toFixed(0)} KiB`).join(" + ")} with the journal | ${slow(run.slowestRequest?.ms)} | ${slow(run.byOrigin[initOrigin]?.slowest.ms)} | ${run.maxOpenSockets} | load ${load()} |`,
    );
    return { ok: run.code === 0 && notDone.length === 0 && notOnce.length === 0, ...(KILL_AT ? {} : { ratio: run.wallMs / ideal }), cpuShare: driverCpuMs(run) / run.wallMs };
  } finally {
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  }
}

/** With --baseline BUNDLE: rounds of the baseline (its fleet driving its installers) then this build, each on fresh installers, and their ratios. */
async function main(): Promise<void> {
  if (values.image === "both") {
    const figures: Record<string, Array<{ ratio?: number; cpuShare: number }>> = { "installers without the image's cache": [], "installers with it": [] };
    let ok = true;
    for (let round = 1; round <= Number(values.rounds); round += 1) {
      for (const [name, installers] of [["installers without the image's cache", undefined], ["installers with it", IMAGE]] as const) {
        const result = await measure(undefined, `round ${round}, ${name}: `, installers);
        ok &&= result.ok;
        figures[name]!.push(result);
      }
    }
    for (const [name, runs] of Object.entries(figures)) say(`${name}: wall/ideal ${runs.map((r) => r.ratio?.toFixed(2)).join(", ")}; CPU ${runs.map((r) => `${(100 * r.cpuShare).toFixed(1)} %`).join(", ")} of wall`);
    process.exitCode = ok ? 0 : 1;
    return;
  }
  if (!values.baseline) {
    process.exitCode = (await measure(undefined, IMAGE ? "installers with the image's cache: " : "", IMAGE)).ok ? 0 : 1;
    return;
  }
  const figures: Record<"baseline" | "this build", Array<{ ratio?: number; cpuShare: number }>> = { baseline: [], "this build": [] };
  let ok = true;
  for (let round = 1; round <= Number(values.rounds); round += 1) {
    for (const [name, bundle] of [["baseline", values.baseline], ["this build", undefined]] as const) {
      const result = await measure(bundle, `round ${round}, ${name}: `, bundle);
      ok &&= result.ok;
      figures[name].push(result);
    }
  }
  for (const [name, runs] of Object.entries(figures)) say(`${name}: wall/ideal ${runs.map((r) => r.ratio?.toFixed(2)).join(", ")}; CPU ${runs.map((r) => `${(100 * r.cpuShare).toFixed(1)} %`).join(", ")} of wall`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(`${TAG}: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
