/** test/run.sh, which every test script runs: its own TMPDIR, removed at the end, and a signal sent to it alone. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir, waitFor } from "../helpers/installer.ts";
import { ROOT } from "../helpers/paths.ts";

/** Without the outer runner's NODE_TEST_CONTEXT: with it, the inner runner would report to it, not run as a run of its own. */
const { NODE_TEST_CONTEXT: _, ...env } = process.env;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("a SIGTERM sent to test/run.sh alone stops the runner and its test files now, and removes the run's TMPDIR", async () => {
  const folder = await tempDir();
  const hanging = join(folder, "hangs.test.mjs");
  const said = join(folder, "said");
  await writeFile(
    hanging,
    `import { test } from "node:test";\nimport { writeFileSync } from "node:fs";\n` +
      `test("hangs", () => new Promise(() => { writeFileSync(${JSON.stringify(said)}, JSON.stringify({ pid: process.pid, tmp: process.env.TMPDIR })); setInterval(() => {}, 1000); }));\n`,
  );
  const run = spawn("sh", ["test/run.sh", hanging], { cwd: ROOT, env, stdio: "ignore" });
  const { pid, tmp } = await waitFor("the hanging test's pid", async () => (existsSync(said) ? (JSON.parse(await readFile(said, "utf8")) as { pid: number; tmp: string }) : undefined));
  assert.ok(tmp.includes("stratum-tests-") && existsSync(tmp), tmp);
  run.kill("SIGTERM");
  try {
    const code = await waitFor("test/run.sh to end", async () => run.exitCode ?? (run.signalCode ? -1 : undefined));
    assert.notEqual(code, 0, "a run stopped is not a run passed");
  } finally {
    if (alive(pid)) process.kill(pid, "SIGKILL");
  }
  await waitFor("the test file's process to end", async () => (alive(pid) ? undefined : true));
  assert.equal(existsSync(tmp), false, "the run's TMPDIR is removed");
});

test("test/run.sh's status is the runner's", async () => {
  const folder = await tempDir();
  for (const [body, expected] of [["", 0], ["throw new Error('no')", 1]] as const) {
    const file = join(folder, `t${expected}.test.mjs`);
    await writeFile(file, `import { test } from "node:test";\ntest("t", () => { ${body} });\n`);
    const run = spawn("sh", ["test/run.sh", file], { cwd: ROOT, env, stdio: "ignore" });
    const [code] = (await once(run, "exit")) as [number | null];
    assert.equal(code, expected);
  }
});
