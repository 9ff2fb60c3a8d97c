/**
 * `npm start`: the installer with an embedded demo — demo host facts, a sample payload,
 * the sample firstboot program and a simulated cloud API (readiness, and the join endpoints
 * with the secret of the node.yaml the installer writes); state in .demo/.
 * After the installer's banner, once the installer has checked the payload's checksums (so that an install
 * pasted at once is not refused PAYLOAD_VERIFYING), it prints the lines to paste into a shell (CODE, API, H, CONTROL).
 * Env: STRATUM_LISTEN (default 127.0.0.1:9443, node 2 127.0.0.1:9444: the demo answers this machine only;
 * 0.0.0.0:9443 to reach it from another); DEMO_SCENARIO (progress | never | ready | error);
 * DEMO_UNATTENDED=1 starts from a fresh state dir with a node.yaml left by "stage 1",
 * which the installer takes and installs by itself; DEMO_CLOUD_PORT (default 8443; 0 = any free
 * port) for the simulated cloud; DEMO_DIR (default .demo) for all the demo's files.
 * DEMO_NODE=1 is the init node of a two-node cluster, with the simulated cloud as usual;
 * DEMO_NODE=2 the node that joins it: on port 9444, with its own host facts and payload copy,
 * and no cloud of its own — node 1's at DEMO_CLOUD_PORT is its cloud too; its lines are CODE2, API2, H2.
 * Each scenario and node keeps its own state (.demo/state, .demo/never/state, .demo/node-2/state…),
 * so one walk-through never finds the node another one installed. The cloud's certificate is made
 * once (.demo/cloud-tls.json), so a join token stays good across restarts.
 * `--nodes N` starts a demo cluster for the Ansible walk-through instead (demo/cluster.ts).
 */
import { spawn } from "node:child_process";
import { access, cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { NodeApi, type Status } from "../cli/fleet/api.ts";
import { parseFingerprint } from "../cli/fleet/node-access.ts";
import { keptCloudCert } from "./cloud-cert.ts";
import { parseNodes, startCluster } from "./cluster.ts";
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

/** The lines a newcomer pastes into another shell, read off the installer's banner; node 2's names end in 2, to sit beside node 1's. */
function linesToPaste(banner: string, control: string, node: DemoNode): string[] | undefined {
  const code = /Install code:\s+(\S+)/.exec(banner)?.[1];
  const listening = /\(listening on (.+):(\d+)\)/.exec(banner);
  if (!code || !listening || !/State dir:.*\n/.test(banner)) return undefined;
  const [, address, port] = listening;
  const host = address === "0.0.0.0" || address === "::" ? "127.0.0.1" : address!.includes(":") ? `[${address}]` : address;
  const n = node === 2 ? "2" : "";
  return [
    node === 2
      ? "demo: paste these lines into the terminal with node 1's (docs/curl.md: A two-node cluster):"
      : "demo: paste these lines into another terminal (the walk-throughs in README.md and docs/curl.md start with them):",
    `CODE${n}=${code}`,
    `API${n}=https://${host}:${port}/v1/installer`,
    `H${n}="Authorization: Bearer $CODE${n}"`,
    `CONTROL=${control}`,
    `demo: switch the simulated cloud with: curl -sk -X POST $CONTROL -H 'Content-Type: application/json' -d '{"scenario":"ready"}'`,
    "",
  ];
}

/** How long the lines wait for the payload check; a payload that takes longer gets them with its blocker said. */
const PAYLOAD_WAIT_MS = 5 * 60_000;

/** The installer's status once it has checked the payload's checksums (asked as the fleet asks, pinned to the banner's certificate). */
function checkedStatus(banner: string, api: string): Promise<Status> {
  const code = /Install code:\s+(\S+)/.exec(banner)![1]!;
  const pin = parseFingerprint(/TLS SHA-256:\s+(\S+)/.exec(banner)![1]!)!;
  return new NodeApi({ url: new URL(api), pin, code }).settledStatus(PAYLOAD_WAIT_MS);
}

/** The line before the lines to paste: what the payload check found. */
function payloadLine(status: Status): string {
  const blockers = (status.blockers ?? []).map((b) => b.code);
  if (blockers.includes("PAYLOAD_VERIFYING")) return `demo: the payload's checksums are still being checked: an install is refused until ${blockers.join(", ")} clear (GET $API/status says how)`;
  return blockers.length === 0 ? "demo: payload checked: an install can start" : `demo: payload checked; an install is refused until these clear: ${blockers.join(", ")} (GET $API/status says how)`;
}

type DemoNode = 1 | 2 | undefined;

function demoNode(): DemoNode {
  const node = process.env.DEMO_NODE;
  if (node === undefined || node === "") return undefined;
  if (node !== "1" && node !== "2") throw new Error(`DEMO_NODE must be 1 (a cluster's init node) or 2 (the node that joins it), got "${node}"`);
  return Number(node) as 1 | 2;
}

function cloudPort(node: DemoNode): number {
  const port = Number(process.env.DEMO_CLOUD_PORT ?? "8443");
  const least = node === 2 ? 1 : 0;
  if (!Number.isInteger(port) || port < least || port > 65535) {
    throw new Error(`DEMO_CLOUD_PORT must be a port number (${node === 2 ? "the port of node 1's simulated cloud" : "0 = any free one"}), got "${process.env.DEMO_CLOUD_PORT}"`);
  }
  return port;
}

const exists = (path: string) => access(path).then(() => true, () => false);

/** Node 2 is another machine: its own name and address, the same disks and interfaces. */
async function joinNodeFacts(demoDir: string): Promise<string> {
  const facts = JSON.parse(await readFile(join(root, "demo/host-facts.json"), "utf8")) as { hostname: string; interfaces: { name: string; addresses: string[] }[] };
  facts.hostname = "node-02";
  for (const nic of facts.interfaces) if (nic.name === "eno1") nic.addresses = ["10.20.0.12/24"];
  const path = join(demoDir, "host-facts.json");
  await writeFile(path, `${JSON.stringify(facts, null, 2)}\n`);
  return path;
}

/** A copy of node 1's payload, whole or not at all: the same release, as a join requires. */
async function payloadCopy(from: string, demoDir: string): Promise<string> {
  const payload = join(demoDir, "payload");
  if (await exists(payload)) return payload;
  const aside = `${payload}.${process.pid}`;
  await cp(from, aside, { recursive: true });
  await rename(aside, payload);
  return payload;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { nodes: { type: "string" } } });
  if (values.nodes !== undefined) return startCluster(parseNodes(values.nodes), resolve(process.env.DEMO_DIR ?? join(root, ".demo")));
  const node = demoNode();
  const unattended = process.env.DEMO_UNATTENDED === "1";
  if (node && unattended) throw new Error("DEMO_NODE and DEMO_UNATTENDED=1 are two walk-throughs: start one of them");
  const scenario = (process.env.DEMO_SCENARIO ?? "progress") as Scenario;
  if (!SCENARIOS.includes(scenario)) throw new Error(`DEMO_SCENARIO must be one of ${SCENARIOS.join(", ")}`);
  const base = resolve(process.env.DEMO_DIR ?? join(root, ".demo"));
  const demoDir = node ? join(base, `node-${node}`) : unattended ? join(base, "unattended") : scenario === "progress" ? base : join(base, scenario);

  await mkdir(demoDir, { recursive: true });
  const basePayload = join(base, "payload");
  if (!(await exists(join(basePayload, "release.yaml")))) await makePayload(basePayload);
  const payload = node === 2 ? await payloadCopy(basePayload, demoDir) : basePayload;
  const hostFacts = node === 2 ? await joinNodeFacts(demoDir) : join(root, "demo/host-facts.json");
  if (unattended) {
    await rm(join(demoDir, "state"), { recursive: true, force: true });
    await mkdir(join(demoDir, "handoff"), { recursive: true });
    await writeFile(join(demoDir, "handoff/node.yaml"), UNATTENDED_NODE_YAML);
    await writeFile(join(demoDir, "install-record.json"), JSON.stringify({ origin: "node.yaml on the partition labeled STRATUM" }));
  }

  const port = cloudPort(node);
  const nodeYaml = join(demoDir, "etc/stratum/node.yaml");
  let readinessUrl = `https://127.0.0.1:${port}/v1/readiness`;
  let closeCloud: () => Promise<void> = async () => undefined;
  if (node === 2) {
    console.log(`demo: node 2 joins the cluster of node 1 (DEMO_NODE=1 npm start): its simulated cloud at 127.0.0.1:${port} is this node's cloud too`);
  } else {
    const release = /^release:\s*(\S+)/m.exec(await readFile(join(payload, "release.yaml"), "utf8"))?.[1];
    const tls = await keptCloudCert(join(base, "cloud-tls.json"));
    const readiness = await startReadinessServer({ port, scenario, foundedWith: nodeYaml, release, tls }).catch((err: NodeJS.ErrnoException) => {
      throw err.code === "EADDRINUSE" ? new Error(`port ${port} (the simulated cloud) is in use: free it, or start with DEMO_CLOUD_PORT=0`) : err;
    });
    console.log(`demo: simulated cloud readiness at ${readiness.url} (scenario ${scenario})`);
    readinessUrl = readiness.url;
    closeCloud = () => readiness.close();
  }

  const installer = spawn(
    process.execPath,
    [
      join(root, "dist/installer.js"),
      "serve",
      "--state-dir", join(demoDir, "state"),
      "--host-facts", hostFacts,
      "--firstboot", join(root, "demo/firstboot.sh"),
      "--node-yaml", nodeYaml,
      "--payload", payload,
      "--handoff", join(demoDir, "handoff/node.yaml"),
      "--install-record", join(demoDir, "install-record.json"),
      "--readiness-url", readinessUrl,
      "--readiness-timeout", process.env.STRATUM_READINESS_TIMEOUT ?? "60",
    ],
    { stdio: ["inherit", "pipe", "inherit"], env: { STRATUM_LISTEN: node === 2 ? "127.0.0.1:9444" : "127.0.0.1:9443", ...process.env } },
  );
  // The banner is the installer's only stdout, written at once (well under a pipe's atomic size).
  let banner = "";
  let pasted = false;
  installer.stdout.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (pasted) return;
    banner += chunk.toString();
    const lines = linesToPaste(banner, new URL("/control/scenario", readinessUrl).href, node);
    if (!lines) return;
    pasted = true;
    const api = lines.find((l) => /^API2?=/.test(l))!.replace(/^API2?=/, "");
    checkedStatus(banner, api).then(
      (status) => process.stdout.write([payloadLine(status), ...lines].join("\n")),
      (err: Error) => process.stdout.write([`demo: the installer's status could not be read (${err.message}): GET $API/status before installing`, ...lines].join("\n")),
    );
  });
  const stop = () => installer.kill("SIGTERM");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  installer.on("exit", async (code) => {
    await closeCloud();
    process.exit(code ?? 0);
  });
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
