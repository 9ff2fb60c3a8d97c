/**
 * Spawn → first 200 on /v1/installer/status, on a node's very first start (no certificate, install
 * code or code cache in its state dir) and on its second start (the same state dir again), each
 * beside a bare Hono HTTPS hello-world started between them; idle RSS of the second start and of
 * the baseline; bundle size. Runs alternate installer and baseline so a slow spell hits both.
 */
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stateLayout } from "../core/state/layout.ts";
import { BUNDLE, ROOT, bundleBaseline, rssKb, spread, stop, timeToFirst200 } from "./lib.ts";

/** Long enough for a process to settle. */
const IDLE_MS = 500;

/** The first start writes its code cache after the first request: the second start is measured with it. */
async function untilExists(path: string, deadline = Date.now() + 10_000): Promise<void> {
  while (!(await stat(path).then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error(`${path} was not written`);
    await sleep(20);
  }
}

export async function benchStartup(node: string, runs = 21) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-"));
  const baseline = join(work, "baseline.cjs");
  await bundleBaseline(baseline);
  const hostFacts = join(ROOT, "demo/host-facts.json");
  const installer = (stateDir: string) =>
    timeToFirst200(
      [BUNDLE, "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--host-facts", hostFacts],
      "/v1/installer/status",
      (out) => ({ authorization: `Bearer ${/Install code:\s+(\S+)/.exec(out)?.[1] ?? ""}` }),
      node,
    );
  const tls = [join(work, "state-0/tls.crt"), join(work, "state-0/tls.key")];
  const bare = () => timeToFirst200([baseline, ...tls], "/", () => ({}), node);

  const first: number[] = [];
  const second: number[] = [];
  const base: number[] = [];
  const rss: number[] = [];
  const baseRss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const stateDir = join(work, `state-${i}`);
    const fresh = await installer(stateDir);
    first.push(fresh.ms);
    await untilExists(stateLayout(stateDir).codeCache);
    await stop(fresh.proc);
    for (const [times, sizes] of [[base, baseRss], [second, rss]] as const) {
      const started = times === base ? await bare() : await installer(stateDir);
      times.push(started.ms);
      await sleep(IDLE_MS);
      sizes.push((await rssKb(started.proc.pid!)) / 1024);
      await stop(started.proc);
    }
  }
  return {
    runs,
    firstStartMs: { installer: spread(first), baseline: spread(base) },
    secondStartMs: { installer: spread(second), baseline: spread(base) },
    idleRssMb: { installer: spread(rss), baseline: spread(baseRss) },
    bundleKb: { installer: (await stat(BUNDLE)).size / 1024, baseline: (await stat(baseline)).size / 1024 },
    stateDir: join(work, "state-0"),
  };
}
