/** CLI commands that need no server: spawn → exit of `--version`, `--help` and `code`, beside `node -e 0`, in alternating runs. */
import { spawn } from "node:child_process";
import { BUNDLE, spread, type Spread } from "./lib.ts";

function timeToExit(node: string, args: string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const proc = spawn(node, args, { stdio: "ignore" });
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${args.join(" ")} exited ${code}`))));
  });
}

/** `stateDir` holds an install code (a started installer's). */
export async function benchCli(node: string, stateDir: string, runs = 21) {
  const commands: Record<string, string[]> = {
    "node -e 0": ["-e", "0"],
    "--version": [BUNDLE, "--version"],
    "--help": [BUNDLE, "--help"],
    code: [BUNDLE, "code", "--state-dir", stateDir],
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(commands)) times[name]!.push(await timeToExit(node, args));
  return Object.fromEntries(Object.entries(times).map(([name, ms]) => [name, spread(ms)])) as Record<string, Spread>;
}
