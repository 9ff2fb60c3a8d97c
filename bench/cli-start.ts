/**
 * The commands the bundle's front answers (--version, --help, code): spawn → exit, beside `node -e 0` on the same
 * runtime, alternating on every run.
 */
import { spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, median } from "./lib.ts";

export interface Spread {
  min: number;
  median: number;
  max: number;
}

const spread = (values: number[]): Spread => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });

function timed(node: string, args: string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  const proc = spawn(node, args, { stdio: "ignore" });
  return new Promise((resolve, reject) =>
    proc.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${args.join(" ")} exited ${code}`)))),
  );
}

/** Each command's spread and its median over `node -e 0`'s; `node` defaults to the one running the bench. */
export async function benchCliStart(runs = 21, node = process.execPath) {
  const stateDir = await mkdtemp(join(tmpdir(), "stratum-bench-cli-"));
  await writeFile(join(stateDir, "install-code"), "ABCD-EFGH-JKMN\n", { mode: 0o600 });
  const bundle = join(ROOT, "dist/installer.js");
  const commands = { "node -e 0": ["-e", "0"], "--version": [bundle, "--version"], "--help": [bundle, "--help"], code: [bundle, "code", "--state-dir", stateDir] };
  const ms: Record<string, number[]> = {};
  for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(commands)) (ms[name] ??= []).push(await timed(node, args));
  const bare = median(ms["node -e 0"]!);
  return Object.entries(ms).map(([name, values]) => ({ name, ...spread(values), ratio: median(values) / bare }));
}
