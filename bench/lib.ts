import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { build } from "esbuild";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..");
/** The bundle measured: the build's, or another one for a before/after (`BENCH_BUNDLE=/path/to/installer.js`). */
export const BUNDLE = process.env.BENCH_BUNDLE ?? join(ROOT, "dist/installer.js");

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export function spread(values: number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function bundleBaseline(outfile: string): Promise<void> {
  await build({ entryPoints: [join(ROOT, "bench/baseline-hono.ts")], outfile, bundle: true, platform: "node", target: "node20", format: "cjs", minify: true });
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, headers, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** Spawns `node` (default: the one running the bench), waits for the "listening on host:port" line, then polls until a 200. Returns ms from spawn to the first 200. */
export async function timeToFirst200(
  args: string[],
  path: string,
  headers: (stdout: string) => Record<string, string>,
  node = process.execPath,
): Promise<{ ms: number; proc: ChildProcess; port: number; stdout: string }> {
  const t0 = process.hrtime.bigint();
  const proc = spawn(node, args, { stdio: ["ignore", "pipe", "ignore"] });
  let stdout = "";
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on("data", (d) => {
      stdout += d;
      const m = /listening on [^\s]*:(\d+)/.exec(stdout);
      if (m && /\n/.test(stdout.slice(stdout.indexOf(m[0])))) resolve(Number(m[1]));
    });
    proc.on("exit", (code) => reject(new Error(`exited ${code}: ${stdout}`)));
  });
  for (;;) {
    if ((await get(port, path, headers(stdout))) === 200) break;
  }
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, proc, port, stdout };
}

export async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

export function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.on("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}

/** Starts the built installer on `node`, on a free port; resolves with its port and install code once the banner is out. */
export async function startInstaller(args: string[], env: NodeJS.ProcessEnv = process.env, node = process.execPath): Promise<{ proc: ChildProcess; port: number; code: string; log: () => string }> {
  const proc = spawn(node, [BUNDLE, "--listen", "127.0.0.1:0", "--host-facts", join(ROOT, "demo/host-facts.json"), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let banner = "";
  let log = "";
  proc.stderr!.on("data", (d) => (log += d));
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on("data", (d) => {
      banner += d;
      const m = /listening on [^\s]*:(\d+)\)/.exec(banner);
      if (m && /State dir/.test(banner)) resolve(Number(m[1]));
    });
    proc.on("exit", (code) => reject(new Error(`installer exited ${code}: ${banner}${log}`)));
  });
  return { proc, port, code: /Install code:\s+(\S+)/.exec(banner)![1]!, log: () => log };
}
