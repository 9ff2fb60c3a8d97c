import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { BUNDLE, DEMO_HOST_FACTS, ROOT, tempDir } from "../helpers/installer.ts";

const ROUNDS = Number(process.env.LOCK_RACE_ROUNDS ?? 50);

interface Start {
  proc: ChildProcess;
  serving: boolean;
  code: number | null;
  stderr: string;
}

const spawned: ChildProcess[] = [];
after(() => {
  for (const proc of spawned) if (proc.exitCode === null) proc.kill("SIGKILL");
});

/** Starts `serve` and settles when it has printed its banner or has exited, whichever comes first. */
function launch(stateDir: string, payload: string): Promise<Start> {
  const proc = spawn(
    process.execPath,
    [BUNDLE, "serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--host-facts", DEMO_HOST_FACTS, "--payload", payload, "--handoff", join(stateDir, "no-handoff/node.yaml")],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  spawned.push(proc);
  let stdout = "";
  let stderr = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`installer neither listened nor exited in 30 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 30_000);
    proc.stdout!.on("data", (d) => {
      stdout += d;
      if (/State dir:.*\n/.test(stdout)) {
        clearTimeout(timer);
        resolvePromise({ proc, serving: true, code: null, stderr });
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      resolvePromise({ proc, serving: false, code, stderr });
    });
  });
}

function stop(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
  const exited = new Promise<number | null>((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  return exited;
}

function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe("state dir lock", () => {
  test(`${ROUNDS} rounds of two simultaneous starts over a stale lock: one survivor, the other exits 2 naming it`, { timeout: 300_000 }, async () => {
    const stateDir = await tempDir();
    const payload = await tempDir("stratum-empty-payload-");
    const lock = join(stateDir, "installer.lock");
    await mkdir(stateDir, { recursive: true });
    const failures: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await writeFile(lock, `${deadPid()}\n`);
      const starts = await Promise.all([launch(stateDir, payload), launch(stateDir, payload)]);
      const survivors = starts.filter((s) => s.serving);
      const losers = starts.filter((s) => !s.serving);
      if (survivors.length !== 1) {
        failures.push(`round ${round}: ${survivors.length} survivors; exits ${losers.map((l) => `${l.code} ${l.stderr.trim()}`).join(" | ")}`);
      } else {
        const [survivor] = survivors;
        const [loser] = losers;
        const holder = Number.parseInt(await readFile(lock, "utf8"), 10);
        if (loser!.code !== 2 || !loser!.stderr.includes(`another installer (pid ${survivor!.proc.pid}) is running on state dir ${stateDir}`)) {
          failures.push(`round ${round}: the loser exited ${loser!.code}: ${loser!.stderr.trim()}`);
        } else if (holder !== survivor!.proc.pid) {
          failures.push(`round ${round}: the lock names pid ${holder}, the survivor is ${survivor!.proc.pid}`);
        }
      }
      const exits = await Promise.all(survivors.map((s) => stop(s.proc)));
      assert.deepEqual(exits, survivors.map(() => 0), `round ${round}: a survivor did not stop cleanly`);
    }
    assert.deepEqual(failures, [], `${failures.length}/${ROUNDS} rounds went wrong`);
    assert.deepEqual((await readdir(stateDir)).filter((name) => name.startsWith("installer.lock")), [], "the lock and its temp files are gone");
  });
});
