/**
 * `npm run fleet:10`: a 10-node cluster (init + 9 joins, --parallel 3) installed by `fleet`, each node a
 * real installer process with its own simulated cloud, on loopback. Prints the fleet's wall time and peak RSS.
 */
import { join } from "node:path";
import { startRig } from "../test/helpers/fleet.ts";
import { startInstaller } from "../test/helpers/installer.ts";

async function main(): Promise<void> {
  const cleanups: Array<() => unknown> = [];
  const lab = {
    defer: (cleanup: () => unknown) => void cleanups.push(cleanup),
    start: async (options?: Parameters<typeof startInstaller>[0]) => {
      const installer = await startInstaller(options);
      cleanups.push(() => installer.kill9());
      return installer;
    },
  };
  try {
    const rig = await startRig(lab, { joins: 9, scenarios: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`node-${String(i + 1).padStart(2, "0")}`, "progress"])) });
    console.log(`fleet:10: 10 installers up; plan ${rig.planFile}`);
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --require ${join(import.meta.dirname, "peak-rss.cjs")}`.trim();
    const started = performance.now();
    const run = await rig.fleet(["--parallel", "3"], { timeoutMs: 300_000 });
    const seconds = (performance.now() - started) / 1000;
    const summary = run.stdout.slice(run.stdout.lastIndexOf("\nNODE "));
    console.log(summary.trim());
    const rss = /peak RSS: (\d+) KiB/.exec(run.stderr)?.[1];
    console.log(`fleet:10: exit ${run.code}, wall time ${seconds.toFixed(1)} s, fleet peak RSS ${rss ? (Number(rss) / 1024).toFixed(1) : "?"} MiB`);
    process.exitCode = run.code === 0 ? 0 : 1;
  } finally {
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  }
}

main().catch((error: unknown) => {
  console.error(`fleet:10: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
