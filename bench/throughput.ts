/**
 * GET /v1/installer/status over HTTPS at 50 connections (autocannon) against two bare Hono HTTPS
 * servers in the same run: a hello-world (the baseline) and one answering with the
 * installer's own reply bytes (same headers, same body: what the reply costs without the
 * installer's code). The three are loaded in turns, ROUNDS times in rotating order, so a slow
 * spell of the machine hits all three; each figure is the median over the rounds. Beside the
 * requests/s, each server's own CPU per request (utime+stime from /proc over a round, divided by
 * the requests answered): steadier than requests/s on a machine shared with other work.
 * `BENCH_COMPARE=/path/to/old/installer.js` loads that bundle too, in the same rounds (before/after).
 */
import autocannon from "autocannon";
import { execFileSync } from "node:child_process";
import type { EventEmitter } from "node:events";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateLayout } from "../core/state/layout.ts";
import { BUNDLE, ROOT, bundleBaseline, median, percentile, stop, timeToFirst200 } from "./lib.ts";

/** Headers Node writes itself; the dressed baseline gets them from Node too. */
const NODE_OWN = new Set(["date", "connection", "keep-alive", "content-length", "content-type", "transfer-encoding"]);

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** A process's CPU time so far (user + system), in µs. */
async function cpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}

/**
 * One round of load, and its p99 from each 2xx answer's own time in µs: autocannon's histogram keeps whole ms, in
 * which a p99 of 2.6 ms against 2.4 ms reads 3 against 2, 1.50×.
 */
async function load(url: string, headers: Record<string, string>, seconds: number) {
  const times: number[] = [];
  // Without a callback autocannon gives its run's EventEmitter, made thenable (its types say only the promise).
  const tracker = autocannon({ url, connections: 50, duration: seconds, headers }) as unknown as EventEmitter & Promise<autocannon.Result>;
  tracker.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) times.push(ms);
  });
  const result = await tracker;
  return { ...result, p99Ms: times.length > 0 ? percentile(times, 99) : Number.NaN };
}

function fetchReply(url: string, headers: Record<string, string>): Promise<{ headers: [string, string][]; body: unknown }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, rejectUnauthorized: false }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () =>
        resolve({
          headers: Object.entries(res.headers).filter((e): e is [string, string] => typeof e[1] === "string" && !NODE_OWN.has(e[0])),
          body: JSON.parse(text),
        }),
      );
    })
      .on("error", reject)
      .end();
  });
}

interface Target {
  pid: number;
  url: string;
  headers: Record<string, string>;
  rps: number[];
  p99: number[];
  /** CPU µs per request, per round. */
  cpu: number[];
  errors: number;
}

async function startInstallerAt(bundle: string, work: string, node: string, name: string) {
  const state = join(work, name);
  const installer = await timeToFirst200(
    [bundle, "--listen", "127.0.0.1:0", "--state-dir", state, "--host-facts", join(ROOT, "demo/host-facts.json")],
    "/healthz",
    () => ({}),
    node,
  );
  const code = /Install code:\s+(\S+)/.exec(installer.stdout)![1]!;
  return { ...installer, state, url: `https://127.0.0.1:${installer.port}/v1/installer/status`, auth: { authorization: `Bearer ${code}` } };
}

export async function benchThroughput(node: string, seconds = 4, rounds = 5) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-rps-"));
  const baseline = join(work, "baseline.cjs");
  await bundleBaseline(baseline);
  const installer = await startInstallerAt(BUNDLE, work, node, "state");
  const compare = process.env.BENCH_COMPARE ? await startInstallerAt(process.env.BENCH_COMPARE, work, node, "compare-state") : undefined;
  const statusUrl = installer.url;
  const auth = installer.auth;
  const replyFile = join(work, "reply.json");
  await writeFile(replyFile, JSON.stringify(await fetchReply(statusUrl, auth)));
  const { tlsCert, tlsKey } = stateLayout(installer.state);
  const tls = [tlsCert, tlsKey];
  const bare = await timeToFirst200([baseline, ...tls], "/", () => ({}), node);
  const dressed = await timeToFirst200([baseline, ...tls, "--dressed", replyFile], "/", () => ({}), node);

  const target = (pid: number | undefined, url: string, headers: Record<string, string>): Target => ({ pid: pid!, url, headers, rps: [], p99: [], cpu: [], errors: 0 });
  const targets: Target[] = [
    target(installer.proc.pid, statusUrl, auth),
    target(bare.proc.pid, `https://127.0.0.1:${bare.port}/`, {}),
    target(dressed.proc.pid, `https://127.0.0.1:${dressed.port}/`, {}),
  ];
  if (compare) targets.push(target(compare.proc.pid, compare.url, compare.auth));
  for (const t of targets) await load(t.url, t.headers, 1); // warm-up, not counted
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(r + i) % targets.length]!;
      const cpuBefore = await cpuMicros(t.pid);
      const result = await load(t.url, t.headers, seconds);
      t.cpu.push(((await cpuMicros(t.pid)) - cpuBefore) / result.requests.total);
      t.rps.push(result.requests.average);
      t.p99.push(result.p99Ms);
      t.errors += result.errors + result.non2xx;
    }
  }
  await Promise.all([stop(installer.proc), stop(bare.proc), stop(dressed.proc), ...(compare ? [stop(compare.proc)] : [])]);

  const [ours, plain, same, old] = targets as [Target, Target, Target, Target | undefined];
  const ratios = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));
  const figures = (t: Target) => ({
    rps: median(t.rps),
    p99: median(t.p99),
    cpuMicros: median(t.cpu),
    errors: t.errors,
    rounds: t.rps.map(Math.round),
    cpuRounds: t.cpu.map((c) => Number(c.toFixed(1))),
  });
  const vs = (a: Target, b: Target) => ({ rps: ratios(a.rps, b.rps), p99: ratios(a.p99, b.p99), cpu: ratios(a.cpu, b.cpu) });
  return {
    seconds,
    rounds,
    installer: figures(ours),
    baseline: figures(plain),
    sameReply: figures(same),
    rpsRatio: ratios(ours.rps, plain.rps),
    p99Ratio: ratios(ours.p99, plain.p99),
    vsSameReply: vs(ours, same),
    compare: old ? { bundle: process.env.BENCH_COMPARE!, figures: figures(old), vsSameReply: vs(old, same) } : undefined,
    replyCost: { rps: ratios(same.rps, plain.rps), p99: ratios(same.p99, plain.p99) },
  };
}
