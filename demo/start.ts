/**
 * `npm start`: the installer with an embedded demo — demo host facts, a sample payload,
 * the sample firstboot program and a simulated cloud readiness endpoint; state in .demo/.
 * Env: STRATUM_LISTEN (default 0.0.0.0:9443); DEMO_SCENARIO (progress | never | ready | error);
 * DEMO_UNATTENDED=1 starts from a fresh state dir with a node.yaml left by "stage 1",
 * which the installer takes and installs by itself.
 */
import { spawn } from "node:child_process";
import { access, mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makePayload } from "./make-payload.ts";
import { SCENARIOS, startReadinessServer, type Scenario } from "./readiness-server.ts";

const root = resolve(import.meta.dirname, "..");

const UNATTENDED_NODE_YAML = `# left by stage 1 beside install.yaml
mode: single-node
hostname: node-01
network:
  interface: eno1
  address: 10.20.0.11/24
  gateway: 10.20.0.1
  dns: [10.20.0.2]
admin:
  ssh_authorized_keys:
    - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example
`;

async function main(): Promise<void> {
  const unattended = process.env.DEMO_UNATTENDED === "1";
  const demoDir = join(root, unattended ? ".demo/unattended" : ".demo");
  const scenario = (process.env.DEMO_SCENARIO ?? "progress") as Scenario;
  if (!SCENARIOS.includes(scenario)) throw new Error(`DEMO_SCENARIO must be one of ${SCENARIOS.join(", ")}`);

  await mkdir(demoDir, { recursive: true });
  const payload = join(root, ".demo/payload");
  if (!(await access(join(payload, "release.yaml")).then(() => true, () => false))) await makePayload(payload);
  if (unattended) {
    await rm(join(demoDir, "state"), { recursive: true, force: true });
    await mkdir(join(demoDir, "handoff"), { recursive: true });
    await writeFile(join(demoDir, "handoff/node.yaml"), UNATTENDED_NODE_YAML);
    await writeFile(join(demoDir, "install-record.json"), JSON.stringify({ origin: "node.yaml on the partition labeled STRATUM" }));
  }

  const readiness = await startReadinessServer({ port: 0, scenario });
  console.log(`demo: simulated cloud readiness at ${readiness.url} (scenario ${scenario})`);
  console.log(`demo: switch it with: curl -sk -X POST ${new URL("/control/scenario", readiness.url)} -H 'Content-Type: application/json' -d '{"scenario":"ready"}'`);

  const installer = spawn(
    process.execPath,
    [
      join(root, "dist/installer.js"),
      "serve",
      "--state-dir", join(demoDir, "state"),
      "--host-facts", join(root, "demo/host-facts.json"),
      "--firstboot", join(root, "demo/firstboot.sh"),
      "--node-yaml", join(demoDir, "etc/stratum/node.yaml"),
      "--payload", payload,
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
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
