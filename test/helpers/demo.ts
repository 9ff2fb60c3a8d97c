import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { parse as parseYaml } from "yaml";
import { httpsCall, ROOT, waitFor, type Reply } from "./installer.ts";

/** `npm start` without its build step, on free ports and in a temp demo folder; stopped when the test ends. */
export interface Demo {
  stdout: () => string;
  code: string;
  api: string;
  control: string;
  stateDir: string;
  call(path: string, method?: string, body?: object): Promise<Reply>;
  stop(): Promise<void>;
}

export async function startDemo(t: TestContext, demoDir: string, env: Record<string, string> = {}): Promise<Demo> {
  const { stdout: printed, stop } = await spawnDemo([], { DEMO_DIR: demoDir, ...env }, /^CONTROL=.*\n/m, 90_000, "the demo did not print its lines to paste", t);
  const stdout = printed();
  // Node 2's lines end in 2, to be pasted beside node 1's.
  const n = env.DEMO_NODE === "2" ? "2" : "";
  const line = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(stdout)?.[1] ?? assert.fail(`no ${name}= line in\n${stdout}`);
  const code = line(`CODE${n}`);
  const api = line(`API${n}`);
  return {
    stdout: printed,
    code,
    api,
    control: line("CONTROL"),
    stateDir: /State dir:\s+(.*)$/m.exec(stdout)![1]!,
    call: (path, method = "GET", body) => httpsCall(`${api}${path}`, { method, body, code }),
    stop,
  };
}

/** The verdict of attempt N once it has one (409 INSTALL_RUNNING while it runs). */
export async function verdictOf(demo: Demo, attempt: number) {
  return waitFor(
    `the verdict of attempt ${attempt}`,
    async () => {
      const reply = await demo.call(`/install/verdict?attempt=${attempt}`);
      return reply.status === 200 ? reply.json : undefined;
    },
    90_000,
  );
}

/** One node of `npm start -- --nodes N`, as its inventory names it. */
export interface DemoClusterNode {
  name: string;
  url: string;
  fingerprint: string;
  code: string;
  call(path: string): Promise<Reply>;
}

export interface DemoCluster {
  dir: string;
  inventory: string;
  /** The ansible-playbook line it printed, as printed. */
  command: string;
  stdout: () => string;
  nodes: DemoClusterNode[];
  stop(): Promise<void>;
}

/**
 * `npm start -- --nodes N` without its build step, on free ports, in a temp demo folder, a fast firstboot
 * and a READY cloud: the installers and the inventory it writes. The caller stops it (`stop`).
 */
export async function startDemoCluster(demoDir: string, nodes: number, env: Record<string, string> = {}): Promise<DemoCluster> {
  const { stdout, stop, match } = await spawnDemo(
    ["--nodes", String(nodes)],
    { DEMO_DIR: demoDir, DEMO_SCENARIO: "ready", ...env },
    /^ansible-playbook -i .*$/m,
    120_000,
    `npm start -- --nodes ${nodes} printed no ansible-playbook line`,
  );
  const command = match[0];
  const inventory = /^ansible-playbook -i (\S+) /.exec(command)![1]!;
  const dir = join(demoDir, "cluster");
  const hosts = (parseYaml(await readFile(inventory, "utf8")) as { stratum: { hosts: Record<string, { stratum_node: { installer: string; fingerprint: string; code: string } }> } }).stratum.hosts;
  const members = await Promise.all(
    Object.entries(hosts).map(async ([name, { stratum_node: node }]) => {
      const code = (await readFile(join(dir, node.code.replace(/^file:/, "")), "utf8")).trim();
      const call = (path: string) => httpsCall(`${node.installer}/v1/installer${path}`, { code });
      return { name, url: node.installer, fingerprint: node.fingerprint, code, call };
    }),
  );
  return { dir, inventory, command, stdout, nodes: members, stop };
}

/**
 * `demo/start.ts ARGS` without its build step, on free ports and a fast firstboot, until its stdout matches `until`
 * (within `timeoutMs`); stopped when `t` ends, and at once when it fails to get there.
 */
async function spawnDemo(args: string[], env: Record<string, string>, until: RegExp, timeoutMs: number, failure: string, t?: TestContext) {
  const proc = spawn(process.execPath, ["--import", "tsx", "demo/start.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, STRATUM_LISTEN: "127.0.0.1:0", DEMO_CLOUD_PORT: "0", FIRSTBOOT_DELAY: "0.01", STRATUM_READINESS_INTERVAL: "0.2", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
    await exited;
  };
  t?.after(stop);
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not within ${timeoutMs / 1000} s`)), timeoutMs);
    proc.stdout.on("data", () => {
      const found = until.exec(stdout);
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`it exited with ${code}`));
    });
  }).catch(async (err: Error) => {
    await stop();
    throw new Error(`${failure} (${err.message})\nstdout: ${stdout}\nstderr: ${stderr}`);
  });
  return { stdout: () => stdout, stop, match };
}
