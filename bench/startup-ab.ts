/**
 * `node --import tsx bench/startup-ab.ts OLD/installer.js NEW/installer.js`: two bundles' first 200 on /status,
 * alternating in one run, each on a fresh state dir with no cache and with its image's cache beside it
 * (`installer.js prepare-image`), and a bare Hono HTTPS start in each round as the baseline: a before/after of a
 * start-up change on a machine whose speed drifts. `NODE_BIN` (default: this Node), `RUNS` (default 15).
 */
import "./own-tmp.ts";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateLayout } from "../core/state/layout.ts";
import { ROOT, bundleBaseline, spread, stop, timeToFirst200 } from "./lib.ts";

const node = process.env.NODE_BIN ?? process.execPath;
const runs = Number(process.env.RUNS ?? 15);
const bundles = process.argv.slice(2);
if (bundles.length === 0) throw new Error("usage: bench/startup-ab.ts BUNDLE [BUNDLE ...]");
const work = mkdtempSync(join(tmpdir(), "stratum-startup-ab-"));
const baseline = join(work, "baseline.cjs");
await bundleBaseline(baseline);
const imaged = bundles.map((bundle, i) => {
  const folder = join(work, `image-${i}`);
  mkdirSync(folder);
  copyFileSync(bundle, join(folder, "installer.js"));
  writeFileSync(join(folder, "package.json"), '{"type":"commonjs"}\n');
  execFileSync(node, [join(folder, "installer.js"), "prepare-image"]);
  return join(folder, "installer.js");
});
const hostFacts = join(ROOT, "demo/host-facts.json");
const start = (bundle: string, stateDir: string) =>
  timeToFirst200(
    [bundle, "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--host-facts", hostFacts],
    "/v1/installer/status",
    (out) => ({ authorization: `Bearer ${/Install code:\s+(\S+)/.exec(out)?.[1] ?? ""}` }),
    node,
  );
const times = new Map<string, number[]>();
const add = (what: string, ms: number) => times.set(what, [...(times.get(what) ?? []), ms]);
let dirs = 0;
for (let round = 0; round < runs; round++) {
  for (let i = 0; i < bundles.length; i++) {
    for (const [what, bundle] of [[`${bundles[i]} very first start`, bundles[i]!], [`${bundles[i]} very first start, image's cache`, imaged[i]!]] as const) {
      const started = await start(bundle, join(work, `state-${dirs++}`));
      add(what, started.ms);
      await stop(started.proc);
    }
  }
  const { tlsCert, tlsKey } = stateLayout(join(work, "state-0"));
  const bare = await timeToFirst200([baseline, tlsCert, tlsKey], "/", () => ({}), node);
  add("bare Hono HTTPS", bare.ms);
  await stop(bare.proc);
}
const bare = spread(times.get("bare Hono HTTPS")!).median;
console.log(`${node} (${execFileSync(node, ["--version"], { encoding: "utf8" }).trim()}), ${runs} rounds; median (min–max), ratio to bare Hono's median`);
for (const [what, ms] of times) {
  const s = spread(ms);
  console.log(`${what}: ${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)}), ${(s.median / bare).toFixed(2)}×`);
}
