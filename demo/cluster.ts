/**
 * `npm start -- --nodes N`: a demo cluster on one machine for the Ansible walk-through (docs/ansible.md).
 * N installers (node-01 the init, the rest joins), each with its own state dir, node.yaml, handoff and log
 * (.demo/cluster/node-0N/, node-0N.log), one payload and one simulated cloud that every node's readiness
 * polls and that the joins check the cluster against (it founded the cluster node-01's node.yaml names).
 * Once every banner is read it writes the inventory (.demo/cluster/inventory.yml: fingerprints from the
 * banners, codes as file:codes/node-0N, mode 0600) and prints the one ansible-playbook line to run.
 * Ports: the installers 127.0.0.1:9451…, the cloud 8453; STRATUM_LISTEN=HOST:0 and DEMO_CLOUD_PORT=0 pick
 * free ones. A node's state is kept across restarts (an installed node stays installed): `rm -rf .demo/cluster`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { access, chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { printable } from "../core/common/printable.ts";
import { keptCloudCert } from "./cloud-cert.ts";
import { makePayload } from "./make-payload.ts";
import { SCENARIOS, startReadinessServer, type Scenario } from "./readiness-server.ts";

export const MAX_NODES = 40;
const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example";

interface Started {
  name: string;
  url: string;
  fingerprint: string;
  code: string;
}

const nodeName = (i: number) => `node-${String(i + 1).padStart(2, "0")}`;
/** A path as the operator would type it from here: relative when under the current folder. */
const shownPath = (path: string) => {
  const shown = relative(process.cwd(), path);
  return shown === "" || shown.startsWith("..") || isAbsolute(shown) ? path : shown;
};
const exists = (path: string) => access(path).then(() => true, () => false);

export function parseNodes(value: string): number {
  const nodes = Number(value);
  if (!/^\d+$/.test(value) || nodes < 1 || nodes > MAX_NODES) throw new Error(`--nodes must be a whole number from 1 to ${MAX_NODES} (node-01 the init, the rest joins), got "${value}"`);
  return nodes;
}

/** Where node i listens: STRATUM_LISTEN's host, and its port (0: a free one), else 127.0.0.1:9451 + i. */
function listenOf(i: number): string {
  const given = process.env.STRATUM_LISTEN;
  if (!given) return `127.0.0.1:${9451 + i}`;
  const at = given.lastIndexOf(":");
  const port = Number(given.slice(at + 1));
  return `${given.slice(0, at)}:${port === 0 ? 0 : port + i}`;
}

function cloudPort(): number {
  const port = Number(process.env.DEMO_CLOUD_PORT ?? "8453");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DEMO_CLOUD_PORT must be a port number (0 = any free one), got "${process.env.DEMO_CLOUD_PORT}"`);
  return port;
}

/** Why a node's installer that exited before its banner did: its last line, and what to do when its port is taken. */
function exitedEarly(name: string, code: number | null, output: string, log: string): Error {
  const last = output.split("\n").map((line) => line.trim()).filter(Boolean).at(-1);
  const taken = /EADDRINUSE|in use/i.test(output) ? "; the demo takes no --listen: start it with STRATUM_LISTEN=127.0.0.1:0 DEMO_CLOUD_PORT=0 to use free ports" : "";
  return new Error(`${name}'s installer exited (${code}) before its banner${last ? `: ${printable(last)}` : ""}${taken}; its log: ${shownPath(log)}`);
}

/** The installer's banner, read off its stdout (which is also written to its log). */
function bannerOf(proc: ChildProcess, name: string, log: string): Promise<Omit<Started, "name">> {
  return new Promise((resolve, reject) => {
    let text = "";
    let errors = "";
    proc.stderr!.on("data", (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4096)));
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const code = /Install code:\s+(\S+)/.exec(text)?.[1];
      const fingerprint = /TLS SHA-256:\s+([0-9A-F:]{95})/.exec(text)?.[1];
      const listening = /\(listening on (.+):(\d+)\)/.exec(text);
      if (!code || !fingerprint || !listening || !/State dir:.*\n/.test(text)) return;
      proc.stdout!.off("data", onData);
      const host = listening[1] === "0.0.0.0" ? "127.0.0.1" : listening[1]!.includes(":") ? `[${listening[1]}]` : listening[1];
      resolve({ url: `https://${host}:${listening[2]}`, fingerprint, code });
    };
    proc.stdout!.on("data", onData);
    // 'close', not 'exit': its pipes are read to their end, so the last line it wrote is in.
    proc.once("close", (code) => reject(exitedEarly(name, code, `${text.slice(-4096)}\n${errors}`, log)));
  });
}

/** The inventory docs/ansible.md describes, for these installers and this cloud (fingerprints quoted: YAML 1.1 reads 12:34:56 as a number). */
export function inventoryText(nodes: Started[], cloudPortNumber: number): string {
  const lines = [
    "# Written by `npm start -- --nodes N` (demo/cluster.ts) for the installers it runs; rewritten at each start.",
    "stratum:",
    "  vars:",
    "    stratum_cluster:",
    "      name: lab-1",
    "      vip: 10.20.0.10",
    `      joinAddress: 127.0.0.1:${cloudPortNumber}     # the simulated cloud; on real machines leave it out: joins use the vip`,
    "      common:",
    "        timezone: UTC",
    "        network: { gateway: 10.20.0.1, dns: [10.20.0.2], floatingIpCidrs: [203.0.113.0/24] }",
    `        admin: { sshAuthorizedKeys: ["${SSH_KEY}"] }`,
    "  hosts:",
  ];
  nodes.forEach((node, i) => {
    lines.push(
      `    ${node.name}:`,
      "      stratum_node:",
      `        installer: ${node.url}`,
      `        fingerprint: "${node.fingerprint}"`,
      `        code: file:codes/${node.name}`,
      `        role: ${i === 0 ? "init" : "join"}`,
      `        config: { network: { interface: eno1, address: 10.20.0.${11 + i}/24 }, storage: { osdDevices: [/dev/sdb] } }`,
    );
  });
  return `${lines.join("\n")}\n`;
}

export async function startCluster(count: number, base: string): Promise<void> {
  const scenario = (process.env.DEMO_SCENARIO ?? "progress") as Scenario;
  if (!SCENARIOS.includes(scenario)) throw new Error(`DEMO_SCENARIO must be one of ${SCENARIOS.join(", ")}`);
  const root = join(import.meta.dirname, "..");
  const dir = join(base, "cluster");
  await mkdir(base, { recursive: true });
  // The logs hold the banners, install codes included: the folder is the operator's alone.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  await mkdir(join(dir, "codes"), { recursive: true, mode: 0o700 });
  const payload = join(dir, "payload");
  if (!(await exists(join(payload, "release.yaml")))) await makePayload(payload);
  const release = /^release:\s*(\S+)/m.exec(await readFile(join(payload, "release.yaml"), "utf8"))?.[1];
  const port = cloudPort();
  const cloud = await startReadinessServer({
    port,
    scenario,
    foundedWith: join(dir, "node-01/node.yaml"),
    release,
    tls: await keptCloudCert(join(dir, "cloud-tls.json")),
  }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === "EADDRINUSE" ? new Error(`port ${port} (the simulated cloud) is in use: free it, or start with DEMO_CLOUD_PORT=0`) : err;
  });

  const procs: ChildProcess[] = [];
  const stop = () => {
    for (const proc of procs) if (proc.exitCode === null) proc.kill("SIGTERM");
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  let exited = 0;
  let up = false;
  const started = Array.from({ length: count }, async (_, i): Promise<Started> => {
    const name = nodeName(i);
    const folder = join(dir, name);
    await mkdir(folder, { recursive: true });
    const logPath = join(dir, `${name}.log`);
    const log = createWriteStream(logPath, { mode: 0o600 });
    const proc = spawn(
      process.execPath,
      [
        join(root, "dist/installer.js"),
        "serve",
        "--listen", listenOf(i),
        "--state-dir", join(folder, "state"),
        "--host-facts", join(root, "demo/host-facts.json"),
        "--firstboot", join(root, "demo/firstboot.sh"),
        "--node-yaml", join(folder, "node.yaml"),
        "--payload", payload,
        "--handoff", join(folder, "handoff.yaml"),
        "--install-record", join(folder, "install-record.json"),
        "--readiness-url", cloud.url,
        "--readiness-timeout", process.env.STRATUM_READINESS_TIMEOUT ?? "60",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    procs.push(proc);
    proc.stdout.pipe(log);
    proc.stderr.pipe(log);
    proc.on("exit", async () => {
      exited += 1;
      if (exited < count) return stop();
      await cloud.close();
      // Before every banner came, the start failed: its error says why, and the exit is not 0.
      if (up) process.exit(0);
    });
    return { name, ...(await bannerOf(proc, name, logPath)) };
  });
  const nodes = await Promise.all(started).catch((err: Error) => {
    stop();
    throw err;
  });
  up = true;
  for (const node of nodes) await writeFile(join(dir, "codes", node.name), `${node.code}\n`, { mode: 0o600 });
  const inventory = join(dir, "inventory.yml");
  await writeFile(inventory, inventoryText(nodes, cloud.port), { mode: 0o600 });
  await chmod(inventory, 0o600);

  const path = shownPath(inventory);
  const joins = count === 1 ? "" : count === 2 ? ", node-02 joins" : `, node-02…${nodeName(count - 1)} join`;
  console.log(
    [
      `demo: ${count} installer${count === 1 ? "" : "s"} run (node-01 the init${joins}), with their simulated cloud at ${cloud.url} (scenario ${scenario}); Ctrl-C stops them`,
      `demo: their logs (banners included) are ${shownPath(dir)}/node-NN.log, their codes ${shownPath(join(dir, "codes"))}/node-NN (mode 0600)`,
      `demo: the inventory for them is ${path}; in another terminal, at the repository's root, install the cluster with:`,
      `ansible-playbook -i ${path} ansible/install-cluster.yml`,
      "",
    ].join("\n"),
  );
}
