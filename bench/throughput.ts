/** GET /v1/installer/status over HTTPS at 50 connections against a bare Hono HTTPS server, same run, same load tool (autocannon). */
import autocannon from "autocannon";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, bundleBaseline, stop, timeToFirst200 } from "./lib.ts";

function load(url: string, headers: Record<string, string>, seconds: number) {
  return autocannon({ url, connections: 50, duration: seconds, headers });
}

export async function benchThroughput(seconds = 10) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-rps-"));
  const baseline = join(work, "baseline.cjs");
  await bundleBaseline(baseline);
  const state = join(work, "state");
  const installer = await timeToFirst200(
    [join(ROOT, "dist/installer.js"), "--listen", "127.0.0.1:0", "--state-dir", state, "--host-facts", join(ROOT, "demo/host-facts.json")],
    "/healthz",
    () => ({}),
  );
  const code = /Install code:\s+(\S+)/.exec(installer.stdout)![1]!;
  const ours = await load(`https://127.0.0.1:${installer.port}/v1/installer/status`, { authorization: `Bearer ${code}` }, seconds);
  await stop(installer.proc);
  const bare = await timeToFirst200([baseline, join(state, "tls.crt"), join(state, "tls.key")], "/", () => ({}));
  const theirs = await load(`https://127.0.0.1:${bare.port}/`, {}, seconds);
  await stop(bare.proc);
  return {
    installer: { rps: ours.requests.average, p99: ours.latency.p99, errors: ours.errors + ours.non2xx },
    baseline: { rps: theirs.requests.average, p99: theirs.latency.p99, errors: theirs.errors + theirs.non2xx },
    rpsRatio: ours.requests.average / theirs.requests.average,
    p99Ratio: ours.latency.p99 / theirs.latency.p99,
  };
}
