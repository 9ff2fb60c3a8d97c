import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { SimListening } from "./server.ts";

export interface Simulation {
  nodes: SimListening[];
  stop(): void;
}

/** `count` simulated installers, `perProcess` to a process (bench/sim/server.ts); node 0 is the init node. */
export async function startSimulation(count: number, perProcess: number, attemptMs: number): Promise<Simulation> {
  const procs: ChildProcess[] = [];
  const stop = () => procs.forEach((proc) => proc.kill());
  try {
    const parts = await Promise.all(
      Array.from({ length: Math.ceil(count / perProcess) }, (_, p) => {
        const first = p * perProcess;
        const args = JSON.stringify({ first, count: Math.min(perProcess, count - first), attemptMs });
        const proc = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "server.ts"), args], { stdio: ["pipe", "pipe", "inherit"] });
        procs.push(proc);
        return new Promise<SimListening[]>((resolve, reject) => {
          createInterface({ input: proc.stdout! }).once("line", (line) => resolve(JSON.parse(line) as SimListening[]));
          proc.once("exit", (code) => reject(new Error(`a simulator process ended (exit ${code}) before its nodes listened`)));
        });
      }),
    );
    return { nodes: parts.flat(), stop };
  } catch (error) {
    stop();
    throw error;
  }
}
