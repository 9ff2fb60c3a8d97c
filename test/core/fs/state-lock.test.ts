import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test, type TestContext } from "node:test";
import { pathToFileURL } from "node:url";
import { acquireLock, acquireStateLock, StateDirLockedError } from "../../../core/fs/state-lock.ts";
import { startTimeOf } from "../../../core/process/group.ts";
import { tempDir, waitFor } from "../../helpers/installer.ts";
import { ROOT } from "../../helpers/paths.ts";

const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;
const live = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
const livePid = live.pid!;
after(() => live.kill("SIGKILL"));

/** A process that has exited and that its parent (a `sleep` that never waits) has not reaped: a zombie, as a killed installer is until reaped. */
async function zombiePid(): Promise<number> {
  const parent = spawn("sh", ["-c", 'sh -c "sleep 0.3" & echo $!; exec sleep 300'], { stdio: ["ignore", "pipe", "ignore"] });
  after(() => parent.kill("SIGKILL"));
  const [line] = (await createInterface({ input: parent.stdout! })[Symbol.asyncIterator]().next()).value.split(" ");
  const pid = Number(line);
  await waitFor("the child to be a zombie", async () => (/^\d+ \(.*\) Z /.test(await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")) ? true : undefined));
  return pid;
}

async function stateDirWithLock(text?: string): Promise<{ stateDir: string; lock: string }> {
  const stateDir = await tempDir();
  const lock = join(stateDir, "installer.lock");
  if (text !== undefined) await writeFile(lock, text);
  return { stateDir, lock };
}

interface Case {
  holding: string;
  /** What installer.lock holds before acquireStateLock; none: there is no lock. */
  text?: () => string | Promise<string>;
  /** Set: the lock is refused, naming this pid. Unset: it is taken. */
  heldBy?: number;
  tookOverFrom?: (written: string) => number;
  skip?: boolean;
}

const CASES: Case[] = [
  { holding: "nothing (a fresh state dir)" },
  { holding: "a running process's pid and start time", text: async () => `${livePid} ${await startTimeOf(livePid)}\n`, heldBy: livePid },
  { holding: "a running process's pid alone (an older installer)", text: () => `${livePid}\n`, heldBy: livePid },
  { holding: "pid 1 alone (alive, even where signalling it is not permitted)", text: () => "1\n", heldBy: 1 },
  { holding: "a dead pid", text: () => `${deadPid()}\n`, tookOverFrom: (written) => Number.parseInt(written, 10) },
  { holding: "a zombie's pid and start time (killed, not yet reaped)", text: async () => { const pid = await zombiePid(); return `${pid} ${startTimeOf(pid)}\n`; }, tookOverFrom: (written) => Number.parseInt(written, 10), skip: process.platform !== "linux" },
  { holding: "a live pid with another start time (the pid was reused)", text: () => `${livePid} 1\n`, tookOverFrom: () => livePid, skip: process.platform !== "linux" },
  { holding: "this process's own pid (left by an earlier process with the same pid)", text: () => `${process.pid}\n`, tookOverFrom: () => process.pid },
  { holding: "an empty file (a writer that crashed before writing)", text: () => "" },
  { holding: "half a record", text: () => "12" },
  { holding: "garbage", text: () => "\u0000\u0000not a pid\n" },
];

describe("acquireStateLock", () => {
  let ours: string;
  before(async () => {
    const start = await startTimeOf(process.pid);
    ours = start ? `${process.pid} ${start}\n` : `${process.pid}\n`;
  });

  for (const { holding, text, heldBy, tookOverFrom, skip } of CASES) {
    const outcome = heldBy === undefined ? "taken: the lock names this process; release removes it" : "refused with StateDirLockedError naming it; the lock untouched";
    test(`a lock holding ${holding} → ${outcome}`, { skip }, async () => {
      const written = await text?.();
      const { stateDir, lock } = await stateDirWithLock(written);
      if (heldBy !== undefined) {
        await assert.rejects(acquireStateLock(stateDir), (err) => err instanceof StateDirLockedError && err.pid === heldBy && err.stateDir === stateDir);
        assert.equal(await readFile(lock, "utf8"), written);
        assert.deepEqual(await readdir(stateDir), ["installer.lock"], "no temp or aside file is left");
        return;
      }
      const acquired = await acquireStateLock(stateDir);
      assert.equal(acquired.tookOverFrom, tookOverFrom?.(written!));
      assert.equal(await readFile(lock, "utf8"), ours);
      assert.deepEqual(await readdir(stateDir), ["installer.lock"], "a stale lock is renamed aside and removed");
      await acquired.release();
      assert.deepEqual(await readdir(stateDir), []);
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

/** A process that takes the lock of the state dir it is sent a line naming, and releases it on "release". */
const RACER = `
import { createInterface } from "node:readline";
import { acquireStateLock, StateDirLockedError } from ${JSON.stringify(pathToFileURL(join(ROOT, "core/fs/state-lock.ts")).href)};
let held;
console.log("ready");
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "release") {
    await held?.release();
    held = undefined;
    console.log("released");
    continue;
  }
  try {
    held = await acquireStateLock(line);
    console.log("won " + (held.tookOverFrom ?? "-"));
  } catch (err) {
    console.log(err instanceof StateDirLockedError ? "lost " + err.pid : "error " + err.message);
  }
}
`;

interface Racer {
  pid: number;
  ask(line: string): Promise<string>;
}

async function racer(t: TestContext): Promise<Racer> {
  const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", RACER], { cwd: ROOT });
  t.after(() => proc.kill("SIGKILL"));
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const answers = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await answers.next();
    if (done) throw new Error(`the racer ended: ${stderr}`);
    return value as string;
  };
  assert.equal(await next(), "ready");
  return {
    pid: proc.pid!,
    ask: (line) => {
      proc.stdin.write(`${line}\n`);
      return next();
    },
  };
}

describe("two processes race for one stale lock", () => {
  test("every round: one wins, the other is refused naming the winner; the lock names the winner; nothing is left after release", { timeout: 60_000 }, async (t) => {
    const racers = await Promise.all([racer(t), racer(t)]);
    for (let round = 1; round <= 20; round++) {
      const stale = deadPid();
      const { stateDir, lock } = await stateDirWithLock(`${stale}\n`);
      const answers = await Promise.all(racers.map((r) => r.ask(stateDir)));
      const winners = racers.filter((_, i) => answers[i]!.startsWith("won "));
      assert.equal(winners.length, 1, `round ${round}: ${answers.join(" | ")}`);
      const winner = winners[0]!;
      const loserAnswer = answers.find((a) => !a.startsWith("won "));
      assert.equal(loserAnswer, `lost ${winner.pid}`, `round ${round}`);
      assert.ok([`won ${stale}`, "won -"].includes(answers[racers.indexOf(winner)]!), `round ${round}: ${answers.join(" | ")}`);
      assert.equal(Number.parseInt(await readFile(lock, "utf8"), 10), winner.pid, `round ${round}`);
      assert.equal(await winner.ask("release"), "released");
      assert.deepEqual(await readdir(stateDir), [], `round ${round}: the lock and its temp and aside files are gone`);
    }
  });
});

describe("acquireLock, at any path (the fleet's state file)", () => {
  test("a running holder: the caller's error; its dead attempts' files beside the lock are removed, another lock's kept", async () => {
    const folder = await tempDir();
    const path = join(folder, "cluster.fleet-state.json.lock");
    await writeFile(path, `${livePid}\n`);
    await assert.rejects(acquireLock(path, (pid) => new Error(`held by ${pid}`)), new RegExp(`^Error: held by ${livePid}$`));
    await writeFile(path, `${deadPid()}\n`);
    const dead = deadPid();
    const leftovers = [`cluster.fleet-state.json.lock.${dead}.abc123.new`, `cluster.fleet-state.json.lock.${dead}.def456.aside`];
    const others = [`installer.lock.${dead}.abc123.new`, `cluster-fleet-state-json-lock.${dead}.abc123.new`];
    for (const name of [...leftovers, ...others]) await writeFile(join(folder, name), "");
    const lock = await acquireLock(path, () => new Error("not expected"));
    assert.equal(await readFile(path, "utf8"), `${process.pid} ${await startTimeOf(process.pid)}\n`);
    assert.deepEqual((await readdir(folder)).sort(), [...others, "cluster.fleet-state.json.lock"].sort(), "only this lock's leftovers are removed");
    await lock.release();
    assert.deepEqual((await readdir(folder)).sort(), [...others].sort());
  });
});

describe("a lock path that holds no lock file", () => {
  const kinds: Array<[string, (path: string) => Promise<void>]> = [
    ["a folder", (path) => mkdir(path).then(() => undefined)],
    ["a symbolic link", (path) => symlink("/nonexistent/installer.lock", path)],
    ["a named pipe", async (path) => void spawnSync("mkfifo", [path])],
  ];
  for (const [kind, make] of kinds) {
    test(`${kind}: refused, named, left as it is (never read, never removed)`, async () => {
      const { stateDir, lock } = await stateDirWithLock();
      await make(lock);
      await assert.rejects(acquireStateLock(stateDir), new RegExp(`^NeedsOperator: ${lock.replace(/[.]/g, "\\.")} is ${kind}, not a lock file \\(a lock is a file naming its holder's pid\\): remove it, then try again$`));
      assert.ok(await lstat(lock));
      assert.deepEqual(await readdir(stateDir), ["installer.lock"], "no attempt's file is left");
    });
  }
});
