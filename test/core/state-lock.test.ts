import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { acquireStateLock, startTimeOf, StateDirLockedError } from "../../core/state-lock.ts";
import { tempDir } from "../helpers/installer.ts";

const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;
const live = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
const livePid = live.pid!;
after(() => live.kill("SIGKILL"));

async function stateDirWithLock(text?: string): Promise<{ stateDir: string; lock: string }> {
  const stateDir = await tempDir();
  const lock = join(stateDir, "installer.lock");
  if (text !== undefined) await writeFile(lock, text);
  return { stateDir, lock };
}

describe("acquireStateLock", () => {
  let ours: string;
  before(async () => {
    const start = await startTimeOf(process.pid);
    ours = start ? `${process.pid} ${start}\n` : `${process.pid}\n`;
  });

  test("a fresh state dir: the lock names this process; release removes it", async () => {
    const { stateDir, lock } = await stateDirWithLock();
    const acquired = await acquireStateLock(stateDir);
    assert.equal(acquired.tookOverFrom, undefined);
    assert.equal(await readFile(lock, "utf8"), ours);
    assert.deepEqual(await readdir(stateDir), ["installer.lock"]);
    await acquired.release();
    assert.deepEqual(await readdir(stateDir), []);
  });

  for (const [name, text] of [
    ["pid and start time", async () => `${livePid} ${await startTimeOf(livePid)}\n`],
    ["pid alone (an older installer)", async () => `${livePid}\n`],
  ] as const) {
    test(`held by a running process (${name}) → StateDirLockedError naming it; the lock is untouched`, async () => {
      const { stateDir, lock } = await stateDirWithLock(await text());
      const held = await readFile(lock, "utf8");
      await assert.rejects(acquireStateLock(stateDir), (err) => err instanceof StateDirLockedError && err.pid === livePid && err.stateDir === stateDir);
      assert.equal(await readFile(lock, "utf8"), held);
      assert.deepEqual(await readdir(stateDir), ["installer.lock"]);
    });
  }

  const stale: [string, () => string, number | "dead" | undefined][] = [
    ["a dead pid", () => `${deadPid()}\n`, "dead"],
    ["a live pid with another start time (the pid was reused)", () => `${livePid} 1\n`, livePid],
    ["this process's own pid (left by an earlier process with the same pid)", () => `${process.pid}\n`, process.pid],
    ["nothing (a writer that crashed before writing)", () => "", undefined],
    ["half a record", () => "12", undefined],
    ["garbage", () => "\u0000\u0000not a pid\n", undefined],
  ];
  for (const [name, text, from] of stale) {
    test(`a lock holding ${name} is taken over`, { skip: from === livePid && process.platform !== "linux" }, async () => {
      const written = text();
      const { stateDir, lock } = await stateDirWithLock(written);
      const acquired = await acquireStateLock(stateDir);
      assert.equal(acquired.tookOverFrom, from === "dead" ? Number.parseInt(written, 10) : from);
      assert.equal(await readFile(lock, "utf8"), ours);
      assert.deepEqual(await readdir(stateDir), ["installer.lock"]);
      await acquired.release();
    });
  }

  test("release leaves a lock that is no longer ours", async () => {
    const { stateDir, lock } = await stateDirWithLock();
    const acquired = await acquireStateLock(stateDir);
    await writeFile(lock, `${livePid}\n`);
    await acquired.release();
    assert.equal(await readFile(lock, "utf8"), `${livePid}\n`);
  });

  test("temp and aside files of dead lock attempts are removed, those of running ones kept", async () => {
    const gone = deadPid();
    const { stateDir } = await stateDirWithLock(`${gone}\n`);
    const leftovers = [`installer.lock.${gone}.0a1b.new`, `installer.lock.${gone}.2c3d.aside`];
    const inFlight = [`installer.lock.${livePid}.4e5f.new`, `installer.lock.${livePid}.6789.aside`];
    for (const name of [...leftovers, ...inFlight]) await writeFile(join(stateDir, name), `${gone}\n`);
    const acquired = await acquireStateLock(stateDir);
    assert.deepEqual((await readdir(stateDir)).sort(), ["installer.lock", ...inFlight].sort());
    await acquired.release();
  });
});
