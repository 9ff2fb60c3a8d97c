/**
 * `npm run ansible:12`: the Ansible walk-through's times. On `npm start -- --nodes N` clusters (the demo's
 * own settings: progress scenario, its firstboot, a readiness poll every 3 s; free ports, temp folders):
 * the first and the second run of `ansible-playbook -i INVENTORY ansible/install-cluster.yml` on 3 nodes,
 * then 12 nodes with `--forks 6 -e stratum_join_batch=6`, beside its baseline, `fleet PLAN --parallel 6` on
 * another fresh 12-node cluster from the same inventory. Prints each wall time and the load average.
 */
import "./own-tmp.ts";
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { parse as parseYaml, stringify } from "yaml";
import { startDemoCluster, type DemoCluster } from "../test/helpers/demo.ts";
import { BUNDLE, ROOT, tempDir } from "../test/helpers/installer.ts";

const DEMO_SETTINGS = { DEMO_SCENARIO: "progress", FIRSTBOOT_DELAY: "0.3", STRATUM_READINESS_INTERVAL: "3" };

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");

async function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const proc = spawn(command, args, { cwd: ROOT, env: { ...process.env, ANSIBLE_NOCOLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exit = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  if (exit !== 0) throw new Error(`${command} ${args.join(" ")} exited ${exit}:\n${output}`);
  const recap = output.includes("PLAY RECAP") ? output.slice(output.lastIndexOf("PLAY RECAP")).trim().split("\n").slice(1) : [];
  const changed = recap.map((line) => Number(/changed=(\d+)/.exec(line)?.[1] ?? 0)).reduce((a, b) => a + b, 0);
  console.log(`ansible:12:   ${command} ${args.join(" ")}: ${seconds.toFixed(1)} s${recap.length ? `, ${recap.length} hosts, changed=${changed} in all` : ""}`);
  return seconds;
}

/** The inventory as a fleet plan (the same fields, SPEC §10), beside it so its file:codes/… resolve. */
async function planOf(cluster: DemoCluster): Promise<string> {
  const inventory = parseYaml(await readFile(cluster.inventory, "utf8")) as { stratum: { vars: { stratum_cluster: unknown }; hosts: Record<string, { stratum_node: object }> } };
  const plan = { cluster: inventory.stratum.vars.stratum_cluster, nodes: Object.entries(inventory.stratum.hosts).map(([name, host]) => ({ name, ...host.stratum_node })) };
  const path = join(cluster.dir, "cluster.yaml");
  await writeFile(path, stringify(plan, { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" }), { mode: 0o600 });
  return path;
}

async function withCluster<T>(nodes: number, work: (cluster: DemoCluster) => Promise<T>): Promise<T> {
  const cluster = await startDemoCluster(await tempDir("stratum-ansible-12-"), nodes, DEMO_SETTINGS);
  try {
    return await work(cluster);
  } finally {
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  console.log(`ansible:12: load average ${load()} at the start`);
  const playbook = (inventory: string, ...args: string[]) => timed("ansible-playbook", ["-i", inventory, "ansible/install-cluster.yml", ...args]);
  const [first, second] = await withCluster(3, async (c) => [await playbook(c.inventory), await playbook(c.inventory)]);
  const twelve = await withCluster(12, (c) => playbook(c.inventory, "--forks", "6", "-e", "stratum_join_batch=6"));
  const fleet = await withCluster(12, async (c) => timed(process.execPath, [BUNDLE, "fleet", await planOf(c), "--parallel", "6"]));
  console.log(
    [
      `ansible:12: 3 nodes, first run ${first!.toFixed(1)} s, second run ${second!.toFixed(1)} s (${(second! / first!).toFixed(2)}× the first)`,
      `ansible:12: 12 nodes, --forks 6, stratum_join_batch=6: ${twelve.toFixed(1)} s; fleet --parallel 6 on the same kind of cluster: ${fleet.toFixed(1)} s (Ansible ${(twelve / fleet).toFixed(2)}× the fleet)`,
      `ansible:12: load average ${load()} at the end`,
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(`ansible:12: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
