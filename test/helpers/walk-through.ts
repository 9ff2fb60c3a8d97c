import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./installer.ts";

export const hasCurl = await promisify(execFile)("curl", ["--version"]).then(() => true, () => false);

/**
 * The shell blocks of one `## ` section of a guide (README.md, docs/…), in order, with its fixed
 * ports and .demo/ moved to where a test's demos run: the commands a reader pastes, as written.
 */
export async function walkThrough(guide: string, heading: string, moves: [from: string, to: string][]): Promise<string> {
  const text = await readFile(join(ROOT, guide), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${guide} has the section "${heading}"`);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  let script = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join("");
  for (const [from, to] of moves) {
    assert.ok(script.includes(from), `the walk-through uses ${from}`);
    script = script.replaceAll(from, to);
  }
  return script;
}

/** Runs a walk-through's commands in bash at the repository's root, with this Node first on PATH. */
export async function runWalkThrough(script: string): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)("bash", ["-c", script], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}
