/**
 * Spawn → first 200 on /v1/installer/status, on a node's very first start (no certificate, install
 * code or code cache in its state dir), on its second start (the same state dir again) and on a very
 * first start from a bundle with its image's cache beside it (`installer.js prepare-image`), each
 * beside a bare Hono HTTPS hello-world started between them; idle RSS of the second start and of
 * the baseline; bundle size. Runs alternate installer and baseline so a slow spell hits both.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stateLayout } from "../core/state/layout.ts";
import { BUNDLE, ROOT, bundleBaseline, rssKb, spread, stop, timeToFirst200 } from "./lib.ts";

/** The parts of a start, from the `listening` log line's marks (ms since the process began), each as a duration. */
export interface StartPhases {
  /** Node's own start, the bundle's front and compiling (and running) the commands' code. */
  compiled: number;
  /** Loading serve's modules (HTTP server, zod, the routes). */
  modules: number;
  /** The state dir: lock, certificate, install code, store, services started. */
  state: number;
  /** The app built, the server made, listening. */
  listen: number;
}

const PHASES = ["compiled", "modules", "state", "listen"] as const;

async function startPhases(stateDir: string, nth: number): Promise<StartPhases> {
  const lines = (await readFile(stateLayout(stateDir).serviceLog, "utf8")).split("\n").filter((l) => l.includes('"message":"listening"'));
  const marks = (JSON.parse(lines[nth]!) as { startMs: { compiled: number; modulesLoaded: number; stateReady: number; listening: number } }).startMs;
  return { compiled: marks.compiled, modules: marks.modulesLoaded - marks.compiled, state: marks.stateReady - marks.modulesLoaded, listen: marks.listening - marks.stateReady };
}

const phaseMedians = (runs: StartPhases[]) => Object.fromEntries(PHASES.map((p) => [p, spread(runs.map((r) => r[p])).median])) as unknown as StartPhases;

/** Long enough for a process to settle. */
const IDLE_MS = 500;

/** The first start writes its code cache once its first requests are over (a second after): the second start is measured with it. */
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
  if (await stat(`${BUNDLE}.code-cache`).then(() => true, () => false)) throw new Error(`${BUNDLE}.code-cache would make every start use it: remove it`);
  // The image's bundle: a copy with its cache beside it, made by this Node.
  const imaged = join(work, "image", "installer.js");
  await mkdir(join(work, "image"));
  await copyFile(BUNDLE, imaged);
  await writeFile(join(work, "image", "package.json"), '{"type":"commonjs"}\n');
  await promisify(execFile)(node, [imaged, "prepare-image"]);
  const installer = (stateDir: string, bundle = BUNDLE) =>
    timeToFirst200(
      [bundle, "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--host-facts", hostFacts],
      "/v1/installer/status",
      (out) => ({ authorization: `Bearer ${/Install code:\s+(\S+)/.exec(out)?.[1] ?? ""}` }),
      node,
    );
  const tls = [join(work, "state-0/tls.crt"), join(work, "state-0/tls.key")];
  const bare = () => timeToFirst200([baseline, ...tls], "/", () => ({}), node);

  const first: number[] = [];
  const image: number[] = [];
  const second: number[] = [];
  const base: number[] = [];
  const rss: number[] = [];
  const baseRss: number[] = [];
  const phases = { first: [] as StartPhases[], image: [] as StartPhases[], second: [] as StartPhases[] };
  for (let i = 0; i < runs; i++) {
    const stateDir = join(work, `state-${i}`);
    const fresh = await installer(stateDir);
    first.push(fresh.ms);
    await untilExists(stateLayout(stateDir).codeCache);
    await stop(fresh.proc);
    phases.first.push(await startPhases(stateDir, 0));
    const imageStateDir = join(work, `image-state-${i}`);
    const fromImage = await installer(imageStateDir, imaged);
    image.push(fromImage.ms);
    await stop(fromImage.proc);
    phases.image.push(await startPhases(imageStateDir, 0));
    for (const [times, sizes] of [[base, baseRss], [second, rss]] as const) {
      const started = times === base ? await bare() : await installer(stateDir);
      times.push(started.ms);
      await sleep(IDLE_MS);
      sizes.push((await rssKb(started.proc.pid!)) / 1024);
      await stop(started.proc);
    }
    phases.second.push(await startPhases(stateDir, 1));
  }
  return {
    runs,
    firstStartMs: { installer: spread(first), baseline: spread(base) },
    imageStartMs: { installer: spread(image), baseline: spread(base) },
    secondStartMs: { installer: spread(second), baseline: spread(base) },
    idleRssMb: { installer: spread(rss), baseline: spread(baseRss) },
    phasesMs: { first: phaseMedians(phases.first), image: phaseMedians(phases.image), second: phaseMedians(phases.second) },
    bundleKb: { installer: (await stat(BUNDLE)).size / 1024, baseline: (await stat(baseline)).size / 1024 },
    stateDir: join(work, "state-0"),
  };
}
