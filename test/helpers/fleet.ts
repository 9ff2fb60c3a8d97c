import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pool } from "../../cli/fleet/pool.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer, type Scenario } from "../../demo/readiness-server.ts";
import { fleetPlanYaml } from "./fixtures.ts";
import { BUNDLE, type Harness, ROOT, type RunningInstaller, tempDir, untilNoBlockers, writeFirstboot } from "./installer.ts";

/** Prints a few lines, like a real firstboot; logs each run beside itself. */
const FIRSTBOOT = `#!/bin/sh
echo run >> "$(dirname "$0")/runs"
echo "firstboot: configuring from $1"
echo "firstboot: starting services"
`;

const FAILING_FIRSTBOOT = `${FIRSTBOOT}echo "firstboot: ceph-osd did not start" >&2
exit 1
`;

/** A firstboot script that prints `lines` too, and then waits `seconds`, before its end. */
const withLines = (script: string, lines: string[] = [], seconds = 0) =>
  lines.length === 0 && seconds === 0
    ? script
    : script.replace(/(exit 1\n)?$/, (exit) => `${lines.map((l) => `printf '%s\\n' '${l.replaceAll("'", "'\\''")}'\n`).join("")}sleep ${seconds}\n${exit}`);

/** What the rig needs of a harness: the e2e tests' own, or a script's. */
type Lab = Pick<Harness, "start" | "defer">;

export interface RigNode {
  name: string;
  role: "init" | "join";
  installer: RunningInstaller;
  /** The cloud this node's readiness polls; the init node's also answers the joins' join check. */
  cloud: ReadinessServer;
  folder: string;
  firstbootRuns(): Promise<number>;
}

export interface FleetRig {
  folder: string;
  planFile: string;
  nodes: RigNode[];
  /** The environment the fleet runs with (one node's install code comes from it). */
  env: Record<string, string>;
  /** Writes the plan (its text changed by `edit`) and returns its path. */
  writePlan(edit?: (text: string) => string): Promise<string>;
  /** Runs `fleet PLAN …` to its end. */
  fleet(args?: string[], options?: { timeoutMs?: number }): Promise<FleetResult>;
  /** Starts `fleet PLAN …`, to kill it part way. */
  spawnFleet(args?: string[]): FleetProcess;
}

interface FleetResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface FleetProcess {
  proc: ChildProcess;
  output(): FleetResult;
  done: Promise<FleetResult>;
}

interface RigOptions {
  joins: number;
  /** Each node's cloud scenario, by node name; default "ready". */
  scenarios?: Record<string, Scenario>;
  readinessTimeoutSeconds?: number;
  /** Nodes whose firstboot fails. */
  failing?: string[];
  /** Lines every firstboot prints after its own (each once, as it is), then waits `firstbootSeconds` (default 0). */
  firstbootLines?: string[];
  firstbootSeconds?: number;
}

async function startNode(lab: Lab, name: string, role: RigNode["role"], payload: string, options: RigOptions): Promise<RigNode> {
  const folder = await tempDir(`stratum-fleet-${name}-`);
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const cloud = await startReadinessServer({
    port: 0,
    scenario: options.scenarios?.[name] ?? "ready",
    stageMs: 300,
    ...(role === "init" ? { foundedWith: nodeYaml } : {}),
  });
  lab.defer(() => cloud.close());
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    payload,
    args: [
      "--firstboot", await writeFirstboot(folder, withLines(options.failing?.includes(name) ? FAILING_FIRSTBOOT : FIRSTBOOT, options.firstbootLines, options.firstbootSeconds)),
      "--node-yaml", nodeYaml,
      "--readiness-url", cloud.url,
      "--readiness-timeout", String(options.readinessTimeoutSeconds ?? 10),
      "--readiness-interval", "0.1",
    ],
  });
  await untilNoBlockers(installer);
  const firstbootRuns = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return { name, role, installer, cloud, folder, firstbootRuns };
}

const START_AT_ONCE = 8;

const nodeName = (i: number) => `node-${String(i + 1).padStart(2, "0")}`;

/** How each node gives its install code: from the environment, from a file beside the plan, or written out. */
function codeSource(node: RigNode, i: number): string {
  if (i === 0) return `env:${node.name.toUpperCase().replace("-", "")}_CODE`;
  return i % 2 === 1 ? `file:codes/${node.name}` : node.installer.code;
}

export function planText(nodes: RigNode[], joinPort: number): string {
  return fleetPlanYaml(
    `127.0.0.1:${joinPort}   # the init node's simulated cloud`,
    nodes.map((node, i) => ({
      name: node.name,
      installer: `https://127.0.0.1:${node.installer.port}`,
      // Both spellings a banner's fingerprint may be pasted in.
      fingerprint: i % 2 === 0 ? node.installer.fingerprint : node.installer.fingerprint.replaceAll(":", "").toLowerCase(),
      code: codeSource(node, i),
      role: node.role,
      address: `10.20.0.${11 + i}/24`,
    })),
  );
}

function runFleetProcess(args: string[], env: Record<string, string>): FleetProcess {
  const proc = spawn(process.execPath, [BUNDLE, "fleet", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout!.on("data", (d) => (stdout += d));
  proc.stderr!.on("data", (d) => (stderr += d));
  const output = () => ({ code: proc.exitCode, stdout, stderr });
  const done = new Promise<FleetResult>((resolve) => proc.on("close", (code) => resolve({ code, stdout, stderr })));
  return { proc, output, done };
}

/** An init node and `joins` joining nodes, each an installer process with its own simulated cloud, and a plan for them. */
export async function startRig(lab: Lab, options: RigOptions): Promise<FleetRig> {
  const folder = await tempDir("stratum-fleet-plan-");
  const payload = join(folder, "payload");
  await makePayload(payload);
  // A few at a time, each waited for: on a busy machine fifty starting at once would each miss its deadline, and a
  // start that fails must not leave the others running unseen by the lab's cleanup.
  const started: Array<PromiseSettledResult<RigNode>> = [];
  await pool(Array.from({ length: options.joins + 1 }, (_, i) => i), START_AT_ONCE, async (i) => {
    started[i] = await startNode(lab, nodeName(i), i === 0 ? "init" : "join", payload, options).then(
      (value) => ({ status: "fulfilled", value }) as const,
      (reason: unknown) => ({ status: "rejected", reason }) as const,
    );
  });
  const failed = started.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  const nodes = started.map((r) => (r as PromiseFulfilledResult<RigNode>).value);
  await mkdir(join(folder, "codes"));
  for (const [i, node] of nodes.entries()) if (codeSource(node, i).startsWith("file:")) await writeFile(join(folder, "codes", node.name), `${node.installer.code}\n`);
  const env = { [`${nodes[0]!.name.toUpperCase().replace("-", "")}_CODE`]: nodes[0]!.installer.code };
  const planFile = join(folder, "cluster.yaml");
  const writePlan = async (edit: (text: string) => string = (t) => t) => {
    await writeFile(planFile, edit(planText(nodes, nodes[0]!.cloud.port)));
    return planFile;
  };
  await writePlan();
  const spawnFleet = (args: string[] = []) => {
    const fleet = runFleetProcess([planFile, ...args], env);
    lab.defer(() => fleet.proc.exitCode === null && fleet.proc.kill("SIGKILL"));
    return fleet;
  };
  const fleet = async (args: string[] = [], { timeoutMs = 60_000 } = {}) => {
    const running = spawnFleet(args);
    const timer = setTimeout(() => running.proc.kill("SIGKILL"), timeoutMs);
    const result = await running.done;
    clearTimeout(timer);
    return result;
  };
  return { folder, planFile, nodes, env, writePlan, fleet, spawnFleet };
}
