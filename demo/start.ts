/**
 * `npm start`: the installer with an embedded demo — demo host facts, the sample
 * firstboot program and a simulated cloud readiness endpoint, state in .demo/.
 * STRATUM_LISTEN (default 0.0.0.0:9443) and DEMO_SCENARIO (progress | never | ready) adjust it.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SCENARIOS, startReadinessServer, type Scenario } from "./readiness-server.ts";

const root = resolve(import.meta.dirname, "..");
const demoDir = join(root, ".demo");
const scenario = (process.env.DEMO_SCENARIO ?? "progress") as Scenario;
if (!SCENARIOS.includes(scenario)) throw new Error(`DEMO_SCENARIO must be one of ${SCENARIOS.join(", ")}`);

await mkdir(demoDir, { recursive: true });
const readiness = await startReadinessServer({ port: 0, scenario });
console.log(`demo: simulated cloud readiness at ${readiness.url} (scenario ${scenario}; switch with POST ${new URL("/control/scenario", readiness.url)})`);

const installer = spawn(
  process.execPath,
  [
    join(root, "dist/installer.js"),
    "serve",
    "--state-dir", join(demoDir, "state"),
    "--host-facts", join(root, "demo/host-facts.json"),
    "--firstboot", join(root, "demo/firstboot.sh"),
    "--node-yaml", join(demoDir, "etc/stratum/node.yaml"),
    "--payload", join(demoDir, "payload"),
    "--handoff", join(demoDir, "handoff/node.yaml"),
    "--install-record", join(demoDir, "install-record.json"),
    "--readiness-url", readiness.url,
    "--readiness-timeout", process.env.STRATUM_READINESS_TIMEOUT ?? "60",
  ],
  { stdio: "inherit", env: { STRATUM_LISTEN: "0.0.0.0:9443", ...process.env } },
);

const stop = () => installer.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
installer.on("exit", async (code) => {
  await readiness.close();
  process.exit(code ?? 0);
});
