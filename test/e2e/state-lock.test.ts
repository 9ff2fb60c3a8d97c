import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { bannerWithin, harness, START_LIMIT_S, tempDir, type SpawnedInstaller } from "../helpers/installer.ts";

const ROUNDS = Number(process.env.LOCK_RACE_ROUNDS ?? 50);

interface Start {
  installer: SpawnedInstaller;
  serving: boolean;
  code: number | null;
  stderr: string;
}

const lab = harness();

/** Starts `serve` and settles when it has printed its banner or has exited, whichever comes first. */
async function launch(stateDir: string, payload: string): Promise<Start> {
  const installer = await lab.spawn({ stateDir, payload });
  const serving = (await bannerWithin(installer, START_LIMIT_S)) !== undefined;
  return { installer, serving, code: serving ? null : await installer.exited, stderr: installer.output().stderr };
}

function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

/**
 * The test's own limit, a round's at most: its two starts (each bounded by launch) and the survivor's stop. A flat 300 s
 * failed 6 runs of 6 beside three fleet rigs' starts on the busy 2-core machine: starts took up to 31 s, none hung.
 */
const ROUND_LIMIT_MS = (START_LIMIT_S + 30) * 1000;

describe("state dir lock", () => {
  test(`${ROUNDS} rounds of two simultaneous starts over a stale lock: one survivor, the other exits 2 naming it`, { timeout: ROUNDS * ROUND_LIMIT_MS }, async () => {
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
        if (loser!.code !== 2 || !loser!.stderr.includes(`another installer (pid ${survivor!.installer.proc.pid}) is running on state dir ${stateDir}`)) {
          failures.push(`round ${round}: the loser exited ${loser!.code}: ${loser!.stderr.trim()}`);
        } else if (holder !== survivor!.installer.proc.pid) {
          failures.push(`round ${round}: the lock names pid ${holder}, the survivor is ${survivor!.installer.proc.pid}`);
        }
      }
      const exits = await Promise.all(survivors.map((s) => s.installer.stop()));
      assert.deepEqual(exits, survivors.map(() => 0), `round ${round}: a survivor did not stop cleanly`);
    }
    assert.deepEqual(failures, [], `${failures.length}/${ROUNDS} rounds went wrong`);
    assert.deepEqual((await readdir(stateDir)).filter((name) => name.startsWith("installer.lock")), [], "the lock and its temp files are gone");
  });
});
