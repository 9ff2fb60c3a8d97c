/**
 * `npm run fleet:10`: a 10-node cluster (init + 9 joins, --parallel 3) installed by `fleet`, each node a
 * real installer process with its own simulated cloud, on loopback. Prints the fleet's figures (bench/fleet-driver.ts).
 */
import "./own-tmp.ts";
import { describeRun, runFleetDriver } from "./fleet-driver.ts";
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
    const run = await runFleetDriver({ plan: rig.planFile, args: ["--parallel", "3"], env: rig.env, timeoutMs: 300_000 });
    console.log(run.stdout.slice(run.stdout.lastIndexOf("\nNODE ")).trim());
    for (const line of describeRun(run, `https://127.0.0.1:${rig.nodes[0]!.installer.port}`)) console.log(`fleet:10: ${line}`);
    process.exitCode = run.code === 0 ? 0 : 1;
  } finally {
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  }
}

main().catch((error: unknown) => {
  console.error(`fleet:10: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
