/**
 * `npm start`: the installer with an embedded demo — demo host facts, a sample payload,
 * the sample firstboot program and a simulated cloud API (readiness, and the join endpoints
 * with the secret of the node.yaml the installer writes); state in .demo/.
 * After the installer's banner it prints the lines to paste into a shell (CODE, API, H, CONTROL).
 * Env: STRATUM_LISTEN (default 0.0.0.0:9443); DEMO_SCENARIO (progress | never | ready | error);
 * DEMO_UNATTENDED=1 starts from a fresh state dir with a node.yaml left by "stage 1",
 * which the installer takes and installs by itself; DEMO_CLOUD_PORT (default 8443; 0 = any free
 * port) for the simulated cloud; DEMO_DIR (default .demo) for all the demo's files.
 * Each scenario keeps its own state (.demo/state, .demo/never/state, .demo/unattended/state…),
 * so one walk-through never finds the node another one installed.
 */
import { spawn } from "node:child_process";
import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
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

/** The lines a newcomer pastes into another shell, read off the installer's banner. */
function linesToPaste(banner: string, control: string): string[] | undefined {
  const code = /Install code:\s+(\S+)/.exec(banner)?.[1];
  const listening = /\(listening on (.+):(\d+)\)/.exec(banner);
  if (!code || !listening || !/State dir:.*\n/.test(banner)) return undefined;
  const [, address, port] = listening;
  const host = address === "0.0.0.0" || address === "::" ? "127.0.0.1" : address!.includes(":") ? `[${address}]` : address;
  return [
    "demo: paste these lines into another terminal (the walk-throughs in README.md start with them):",
    `CODE=${code}`,
    `API=https://${host}:${port}/v1/installer`,
    'H="Authorization: Bearer $CODE"',
    `CONTROL=${control}`,
    `demo: switch the simulated cloud with: curl -sk -X POST $CONTROL -H 'Content-Type: application/json' -d '{"scenario":"ready"}'`,
    "",
  ];
}

function cloudPort(): number {
  const port = Number(process.env.DEMO_CLOUD_PORT ?? "8443");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DEMO_CLOUD_PORT must be a port number (0 = any free one), got "${process.env.DEMO_CLOUD_PORT}"`);
  return port;
}

async function main(): Promise<void> {
  const unattended = process.env.DEMO_UNATTENDED === "1";
  const scenario = (process.env.DEMO_SCENARIO ?? "progress") as Scenario;
  if (!SCENARIOS.includes(scenario)) throw new Error(`DEMO_SCENARIO must be one of ${SCENARIOS.join(", ")}`);
  const base = resolve(process.env.DEMO_DIR ?? join(root, ".demo"));
  const demoDir = unattended ? join(base, "unattended") : scenario === "progress" ? base : join(base, scenario);

  await mkdir(demoDir, { recursive: true });
  const payload = join(base, "payload");
  if (!(await access(join(payload, "release.yaml")).then(() => true, () => false))) await makePayload(payload);
  if (unattended) {
    await rm(join(demoDir, "state"), { recursive: true, force: true });
    await mkdir(join(demoDir, "handoff"), { recursive: true });
    await writeFile(join(demoDir, "handoff/node.yaml"), UNATTENDED_NODE_YAML);
    await writeFile(join(demoDir, "install-record.json"), JSON.stringify({ origin: "node.yaml on the partition labeled STRATUM" }));
  }

  const port = cloudPort();
  const nodeYaml = join(demoDir, "etc/stratum/node.yaml");
  const release = /^release:\s*(\S+)/m.exec(await readFile(join(payload, "release.yaml"), "utf8"))?.[1];
  const readiness = await startReadinessServer({ port, scenario, foundedWith: nodeYaml, release }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === "EADDRINUSE" ? new Error(`port ${port} (the simulated cloud) is in use: free it, or start with DEMO_CLOUD_PORT=0`) : err;
  });
  console.log(`demo: simulated cloud readiness at ${readiness.url} (scenario ${scenario})`);

  const installer = spawn(
    process.execPath,
    [
      join(root, "dist/installer.js"),
      "serve",
      "--state-dir", join(demoDir, "state"),
      "--host-facts", join(root, "demo/host-facts.json"),
      "--firstboot", join(root, "demo/firstboot.sh"),
      "--node-yaml", nodeYaml,
      "--payload", payload,
      "--handoff", join(demoDir, "handoff/node.yaml"),
      "--install-record", join(demoDir, "install-record.json"),
      "--readiness-url", readiness.url,
      "--readiness-timeout", process.env.STRATUM_READINESS_TIMEOUT ?? "60",
    ],
    { stdio: ["inherit", "pipe", "inherit"], env: { STRATUM_LISTEN: "0.0.0.0:9443", ...process.env } },
  );
  // The banner is the installer's only stdout, written at once (well under a pipe's atomic size).
  let banner = "";
  let pasted = false;
  installer.stdout.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (pasted) return;
    banner += chunk.toString();
    const lines = linesToPaste(banner, new URL("/control/scenario", readiness.url).href);
    if (lines) process.stdout.write(lines.join("\n"));
    pasted = lines !== undefined;
  });
  const stop = () => installer.kill("SIGTERM");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  installer.on("exit", async (code) => {
    await readiness.close();
    process.exit(code ?? 0);
  });
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
