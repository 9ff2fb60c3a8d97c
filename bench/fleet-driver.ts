/**
 * Runs the fleet CLI (`node dist/installer.js fleet PLAN args…`) as a child process and measures it: wall time from
 * the spawn to its exit; from inside it (bench/fleet-probe.cjs, preloaded) its CPU time, peak RSS, most open
 * sockets and fds, and the slowest request to each node (time to the answer's headers; event streams left out);
 * from outside (an fs.watch on the state file's folder, so the count costs the driver nothing and survives its
 * kill -9) how many times the state file was renamed into place and its size each time, and the bytes its journal
 * took.
 * Shared by bench/fleet-10.ts, bench/fleet-50.ts and the simulated fleet bench.
 */
import { spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, statSync, watch } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join, resolve } from "node:path";
import { journalPathOf } from "../cli/fleet/state-journal.ts";
import { BUNDLE, ROOT } from "./lib.ts";

export const PROBE = join(ROOT, "bench/fleet-probe.cjs");

export interface FleetDriverOptions {
  /** The plan's path. */
  plan: string;
  /** What follows `fleet PLAN` (e.g. ["--parallel", "10"]). */
  args?: string[];
  /** Added to this process's environment (an install code given as env:…); its NODE_OPTIONS, if any, go before the probe's. */
  env?: Record<string, string>;
  cwd?: string;
  /** Node's own flags, before the bundle (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  /** The node that runs the bundle; default this one. */
  node?: string;
  bundle?: string;
  /** SIGKILL after this long; default none. */
  timeoutMs?: number;
  /** Asked on each chunk of output: true kills the driver with SIGKILL (a kill -9 mid-run). */
  killWhen?: (output: { stdout: string; stderr: string }) => boolean;
  /** How often the probe counts open fds; default 250 ms. */
  sampleMs?: number;
}

export interface SlowRequest {
  /** e.g. https://127.0.0.1:40123 */
  origin: string;
  path: string;
  /** From the request's start (its connection already open) to the answer's headers. */
  ms: number;
}

export interface FleetDriverRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed by killWhen or the timeout. */
  killed: boolean;
  stdout: string;
  stderr: string;
  /** When it was spawned (ms since the epoch, to set beside the nodes' own timestamps) and how long it ran. */
  startedAtMs: number;
  wallMs: number;
  /** Each line of its stdout with when it came (ms after the spawn). */
  lines: Array<{ ms: number; line: string }>;
  /** The probe's figures; at a kill -9, those of its last report (at most a second old). */
  peakRssKiB: number;
  /** User + system CPU time of the driver. */
  cpuMs: number;
  /** Of it, the system's: on loopback the kernel's TCP work for both ends of a write is charged to the writer. */
  systemCpuMs: number;
  /** When its first request started, ms after the process's own start (performance.timeOrigin): its start and the plan's checks. */
  firstRequestMs: number | null;
  maxOpenSockets: number;
  maxOpenFds: number;
  /** Requests answered (event streams left out). */
  requests: number;
  slowestRequest: SlowRequest | null;
  byOrigin: Record<string, { requests: number; slowest: SlowRequest }>;
  /** Times the state file was renamed into place (written whole)… */
  stateWrites: number;
  /** …and every byte written to it and its journal, of which… */
  stateBytes: number;
  /** …these were appended to the journal (cli/fleet/state-journal.ts). */
  journalBytes: number;
  statePath: string;
  /** CPU the probe itself spent reading /proc/self/fd and /proc/self/task (part of cpuMs; see driverCpuMs). */
  probeMs: number;
  /** CPU ms by thread name (main, V8's helpers, libuv's pool) at the last report: what of cpuMs is not the main thread's JavaScript. */
  threadCpuMs?: Record<string, number>;
}

interface ProbeReport extends Pick<FleetDriverRun, "peakRssKiB" | "cpuMs" | "systemCpuMs" | "firstRequestMs" | "maxOpenSockets" | "maxOpenFds" | "requests" | "slowestRequest" | "byOrigin" | "probeMs" | "threadCpuMs"> {
  pid: number;
}

/** Where the fleet keeps its state for these arguments (cli/fleet/index.ts: --state, or PLAN.fleet-state.json beside the plan). */
export function statePathOf(plan: string, args: readonly string[], cwd: string): string {
  const i = args.indexOf("--state");
  const given = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith("--state="))?.slice("--state=".length);
  return resolve(cwd, given ?? join(dirname(plan), `${basename(plan, extname(plan))}.fleet-state.json`));
}

/**
 * Counts renames onto `path`'s name in its folder (whole writes of the state file, and their sizes) and the bytes
 * written to its journal: the journal is only appended to, or replaced whole, so its bytes are the last size of each
 * journal file there was. Each is held open from its first event, so its last size is read even once replaced.
 * `settle()` returns once every event before it was seen.
 */
function watchWrites(path: string) {
  const folder = dirname(path);
  const name = basename(path);
  const journalPath = journalPathOf(path);
  const journalName = basename(journalPath);
  const sentinel = `.fleet-driver-${process.pid}-${Date.now()}`;
  let writes = 0;
  let bytes = 0;
  let journalBytes = 0;
  let journal: { fd: number; ino: number } | undefined;
  const sizeOf = (fd: number) => fstatSync(fd).size;
  /** The journal file now at its name, held open; the one it replaced counted at its last size. */
  const followJournal = () => {
    let ino: number;
    try {
      ino = statSync(journalPath).ino;
    } catch {
      return;
    }
    if (journal?.ino === ino) return;
    if (journal) {
      journalBytes += sizeOf(journal.fd);
      closeSync(journal.fd);
      journal = undefined;
    }
    try {
      const fd = openSync(journalPath, "r");
      journal = { fd, ino: fstatSync(fd).ino };
    } catch {
      // replaced again already: its next event follows it
    }
  };
  const watcher = watch(folder, (event, file) => {
    if (file === sentinel) return settled?.();
    if (file === journalName) return followJournal();
    if (event !== "rename" || file !== name) return;
    try {
      bytes += statSync(path).size;
      writes += 1;
    } catch {
      // removed, not written
    }
  });
  let settled: (() => void) | undefined;
  const appended = () => journalBytes + (journal ? sizeOf(journal.fd) : 0);
  return {
    figures: () => ({ stateWrites: writes, stateBytes: bytes + appended(), journalBytes: appended() }),
    /** inotify keeps one watch's events in order: once the sentinel's arrives, every earlier one was counted. */
    async settle() {
      const seen = new Promise<void>((r) => (settled = r));
      await writeFile(join(folder, sentinel), "");
      await seen;
      await rm(join(folder, sentinel), { force: true });
      watcher.close();
      followJournal();
      if (journal) {
        journalBytes += sizeOf(journal.fd);
        closeSync(journal.fd);
        journal = undefined;
      }
    },
  };
}

export async function runFleetDriver(options: FleetDriverOptions): Promise<FleetDriverRun> {
  const cwd = options.cwd ?? ROOT;
  const args = options.args ?? [];
  const statePath = statePathOf(options.plan, args, cwd);
  const probeDir = await mkdtemp(join(tmpdir(), "fleet-probe-"));
  const probeOut = join(probeDir, "probe.json");
  const writes = watchWrites(statePath);
  const env = {
    ...process.env,
    ...options.env,
    NODE_OPTIONS: `${options.env?.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ""} --require ${PROBE}`.trim(),
    FLEET_PROBE_OUT: probeOut,
    ...(options.sampleMs ? { FLEET_PROBE_SAMPLE_MS: String(options.sampleMs) } : {}),
  };
  const startedAtMs = Date.now();
  const started = performance.now();
  const proc = spawn(options.node ?? process.execPath, [...(options.nodeArgs ?? []), options.bundle ?? BUNDLE, "fleet", options.plan, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let killed = false;
  const kill = () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    killed = true;
    proc.kill("SIGKILL");
  };
  const heard = () => options.killWhen?.({ stdout, stderr }) && kill();
  const lines: FleetDriverRun["lines"] = [];
  let partial = "";
  proc.stdout.on("data", (d) => {
    stdout += d;
    const ms = performance.now() - started;
    const parts = (partial + String(d)).split("\n");
    partial = parts.pop()!;
    for (const line of parts) lines.push({ ms, line });
    heard();
  });
  proc.stderr.on("data", (d) => ((stderr += d), heard()));
  const timer = options.timeoutMs ? setTimeout(kill, options.timeoutMs) : undefined;
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => proc.on("close", (c, s) => r([c, s])));
  const wallMs = performance.now() - started;
  clearTimeout(timer);
  await writes.settle();
  const text = await readFile(probeOut, "utf8").catch(() => undefined);
  await rm(probeDir, { recursive: true, force: true });
  if (text === undefined) throw new Error(`the fleet-probe wrote no report (exit ${code ?? signal}): ${stderr.slice(-2000)}`);
  const { pid: _pid, ...probe } = JSON.parse(text) as ProbeReport;
  return { code, signal, killed, stdout, stderr, startedAtMs, wallMs, lines, ...probe, ...writes.figures(), statePath };
}

/**
 * The wall time with no driver overhead: the init node's span, then the joins' spans (in plan order) as a pool of
 * `parallel` would schedule them, each taken by the first worker free.
 */
export function idealWallMs(initMs: number, joinMs: readonly number[], parallel: number): number {
  const free = Array.from({ length: Math.max(1, Math.min(parallel, joinMs.length)) }, () => 0);
  for (const ms of joinMs) {
    const i = free.indexOf(Math.min(...free));
    free[i]! += ms;
  }
  return initMs + Math.max(...free);
}

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

/** The driver's own CPU: the process's less what the probe measuring it spent (its reads of /proc). */
export const driverCpuMs = (run: FleetDriverRun) => run.cpuMs - run.probeMs;

/** "main 2.03 s, node 0.39 s" (Node names its helper threads "node"): the threads that spent CPU, most first. */
const threadSplit = (byName: Record<string, number>) =>
  Object.entries(byName)
    .filter(([, ms]) => ms > 0)
    .sort(([, a], [, b]) => b - a)
    .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(2)} s`)
    .join(", ");

/** The run's figures in a few lines, for a bench to print. */
export function describeRun(run: FleetDriverRun, initOrigin?: string): string[] {
  const slow = (r: SlowRequest | null | undefined) => (r ? `${r.ms.toFixed(0)} ms (${r.origin}${r.path})` : "-");
  const lines = [
    `wall ${(run.wallMs / 1000).toFixed(1)} s; exit ${run.code ?? run.signal}`,
    `driver peak RSS ${mib(run.peakRssKiB)}; CPU ${(driverCpuMs(run) / 1000).toFixed(2)} s = ${((100 * driverCpuMs(run)) / run.wallMs).toFixed(1)} % of wall (of it system ${(run.systemCpuMs / 1000).toFixed(2)} s; the probe's own ${run.probeMs.toFixed(0)} ms of the main thread left out: ${((100 * run.cpuMs) / run.wallMs).toFixed(1)} % with it)`,
    ...(run.threadCpuMs ? [`of the CPU, by thread: ${threadSplit(run.threadCpuMs)}`] : []),
    `state file written whole ${run.stateWrites} times, its journal ${(run.journalBytes / 1024).toFixed(0)} KiB: ${(run.stateBytes / 1024).toFixed(0)} KiB in all`,
    `at most ${run.maxOpenSockets} sockets (${run.maxOpenFds} fds) open; ${run.requests} requests, slowest ${slow(run.slowestRequest)}`,
  ];
  if (initOrigin) lines.push(`slowest to the init node: ${slow(run.byOrigin[initOrigin]?.slowest)}`);
  return lines;
}
