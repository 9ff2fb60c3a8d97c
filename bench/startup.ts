/**
 * Cold start (spawn → first 200 on /v1/installer/status, median of N) and idle RSS,
 * each beside a bare Hono HTTPS hello-world measured in the same run; and bundle size.
 */
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, bundleBaseline, median, rssKb, stop, timeToFirst200 } from "./lib.ts";

export async function benchStartup(runs = 10) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-"));
  const baseline = join(work, "baseline.cjs");
  await bundleBaseline(baseline);
  const bundle = join(ROOT, "dist/installer.js");
  const hostFacts = join(ROOT, "demo/host-facts.json");

  const installerMs: number[] = [];
  const baselineMs: number[] = [];
  const installerRss: number[] = [];
  const baselineRss: number[] = [];
  // A state dir that already has its cert and code: the steady start of a node, not its very first.
  const warm = await timeToFirst200([bundle, "--listen", "127.0.0.1:0", "--state-dir", join(work, "warm"), "--host-facts", hostFacts], "/healthz", () => ({}));
  await stop(warm.proc);
  for (let i = 0; i < runs; i++) {
    const inst = await timeToFirst200(
      [bundle, "--listen", "127.0.0.1:0", "--state-dir", join(work, "warm"), "--host-facts", hostFacts],
      "/v1/installer/status",
      (out) => ({ authorization: `Bearer ${/Install code:\s+(\S+)/.exec(out)?.[1] ?? ""}` }),
    );
    installerMs.push(inst.ms);
    await sleep(500);
    installerRss.push(await rssKb(inst.proc.pid!));
    await stop(inst.proc);

    const base = await timeToFirst200([baseline, join(work, "warm/tls.crt"), join(work, "warm/tls.key")], "/", () => ({}));
    baselineMs.push(base.ms);
    await sleep(500);
    baselineRss.push(await rssKb(base.proc.pid!));
    await stop(base.proc);
  }
  const bundleBytes = (await stat(bundle)).size;
  const baselineBytes = (await stat(baseline)).size;
  return {
    coldStartMs: { installer: median(installerMs), baseline: median(baselineMs), ratio: median(installerMs) / median(baselineMs) },
    idleRssMb: { installer: median(installerRss) / 1024, baseline: median(baselineRss) / 1024, ratio: median(installerRss) / median(baselineRss) },
    bundleKb: { installer: bundleBytes / 1024, baseline: baselineBytes / 1024 },
  };
}
