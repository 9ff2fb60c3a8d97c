import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";

export const TAIL_LINES = 50;

/** Runs the firstboot executable with the node.yaml path; every output line is an event; a non-zero exit fails. */
export async function runFirstboot(ctx: StepContext, executable: string, nodeYamlPath: string, tail: string[]): Promise<void> {
  const child = spawn(executable, [nodeYamlPath], { stdio: ["ignore", "pipe", "pipe"], signal: ctx.signal });
  const follow = (stream: Readable, level: "info" | "warn") =>
    new Promise<void>((resolve) => {
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on("line", (raw) => {
        const line = ctx.redactor.text(raw);
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        ctx.emit({ type: "step.log", level, message: line, data: { stream: level === "info" ? "stdout" : "stderr" } });
        const caughtUp = ctx.backlogged();
        if (caughtUp) {
          stream.pause();
          void caughtUp.then(() => stream.resume());
        }
      });
      lines.on("close", resolve);
    });
  const output = Promise.all([follow(child.stdout, "info"), follow(child.stderr, "warn")]);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  await output;
  if (ctx.signal.aborted) throw ctx.signal.reason;
  if (exit.error) {
    throw new StepFailure("FIRSTBOOT_FAILED", `could not run ${executable}: ${exit.error.message}. Check that --firstboot names an executable file on this node.`);
  }
  if (exit.code !== 0) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const last = tail.slice(-5).join(" | ");
    throw new StepFailure("FIRSTBOOT_FAILED", `firstboot ${how}${last ? `; last output: ${last}` : ""}`, {
      exitCode: exit.code,
      signal: exit.signal,
      tail: tail.slice(),
    });
  }
}
