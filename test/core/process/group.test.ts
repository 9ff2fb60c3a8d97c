import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { GRACE_MS, describeStopped, firstbootMark, killMarked, markedEnv, startTimeOf, stopGroup, stopRecordedGroup } from "../../../core/process/group.ts";
import { FIRSTBOOT_MARK_VARIABLE } from "../../../core/process/mark.ts";
import { alive } from "../../helpers/processes.ts";
import { stuckFor } from "../../helpers/stuck-in-kernel.ts";


function group(script: string): ChildProcess {
  return spawn("sh", ["-c", script], { stdio: "ignore", detached: true });
}

test("a recorded pid whose start time differs is a reused pid: it is left alone", async () => {
  // Not through sh: spawn returns once sleep is exec'd, so its name is never still "sh" when it is stopped.
  const pid = spawn("sleep", ["60"], { stdio: "ignore", detached: true }).pid!;
  const startTime = startTimeOf(pid)!;
  assert.equal(typeof startTime, "number");
  try {
    assert.equal(await stopRecordedGroup({ pid, startTime: startTime + 1 }), undefined);
    assert.equal(await alive(pid), true);
    assert.equal(await stopRecordedGroup({ pid, startTime: null }), undefined, "no start time, no proof: left alone");
    assert.equal(await alive(pid), true);
    assert.deepEqual(await stopRecordedGroup({ pid, startTime }), { processes: [{ pid, command: "sleep" }] });
    assert.equal(await alive(pid), false);
  } finally {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

test("a group that ignores SIGTERM gets SIGKILL after the grace period; every member is named", async () => {
  const pid = group("trap '' TERM; sleep 60 & sleep 60 & wait").pid!;
  const members = await waitForMembers(pid, ["sh", "sleep", "sleep"]);
  const stopped = await stopGroup(pid, undefined, 300);
  assert.equal(stopped.killedAfterMs, 300);
  assert.deepEqual(stopped.processes.map((p) => p.pid).sort(), members.sort());
  assert.deepEqual(stopped.processes.map((p) => p.command).sort(), ["sh", "sleep", "sleep"]);
  for (const member of members) assert.equal(await alive(member), false);
});

test("SIGTERM comes first (SPEC §6: SIGTERM, then SIGKILL after a grace period): a group that ends on it is not killed, and had its cleanup", async () => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-term-"));
  const said = join(folder, "said");
  const pid = group(`trap 'echo cleaned up on TERM > "${said}"; exit 0' TERM; sleep 60 & wait`).pid!;
  const members = await waitForMembers(pid, ["sh", "sleep"]);
  const stopped = await stopGroup(pid, undefined, 60_000);
  assert.equal(stopped.killedAfterMs, undefined, "no SIGKILL was needed");
  assert.equal(await readFile(said, "utf8"), "cleaned up on TERM\n");
  assert.deepEqual(stopped.processes.map((p) => p.pid).sort(), members.sort());
  for (const member of members) assert.equal(await alive(member), false);
});

test("the grace period runs on the injected monotonic clock: one that jumps a second each look ends it without the real wait", async () => {
  const pid = group("trap '' TERM; exec sleep 60").pid!;
  await waitForMembers(pid, ["sleep"]);
  let looks = 0;
  const jumping = () => (looks += 1) * 1000;
  const stopped = await stopGroup(pid, jumping);
  assert.equal(stopped.killedAfterMs, GRACE_MS);
  // The grace period ended by the clock's looks (one a poll): by the real clock it would have taken sixty polls of 50 ms.
  assert.ok(looks >= GRACE_MS / 1000 && looks <= GRACE_MS / 1000 + 3, `the clock looked at ${looks} times`);
  assert.equal(await alive(pid), false);
});

test("a process still there after SIGKILL (stuck in the kernel) is named as such, not as stopped", async (t) => {
  const mark = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const stuck = await stuckFor(t, markedEnv(mark, 2));
  if (!stuck) return;
  let fake = 0;
  const jumping = () => (fake += 1000);
  const stopped = await stopGroup(stuck.pid, jumping, GRACE_MS, mark);
  assert.deepEqual(stopped.processes, [{ pid: stuck.pid, command: "stat", attempt: 2 }]);
  assert.deepEqual(stopped.survived, [{ pid: stuck.pid, command: "stat", state: "D" }]);
  assert.equal(await alive(stuck.pid), true);
  assert.match(describeStopped(stopped, "firstboot left running"), new RegExp(`^1 process firstboot left running is still there after SIGKILL \\(SIGTERM was ignored: SIGKILL after 3 s\\): ${stuck.pid} stat \\(state D: waiting in the kernel`));
  const again = await killMarked(mark, jumping);
  assert.deepEqual(again.survived, [{ pid: stuck.pid, command: "stat", state: "D" }], "a kill of the marked ones names it again");
  await stuck.release();
  assert.equal(await alive(stuck.pid), false, "released, it dies of its SIGKILL");
});

test("a kill of the marked ones waits for none already known to be stuck, nor once the caller stops waiting: named as still there at once", async (t) => {
  const mark = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const stuck = await stuckFor(t, markedEnv(mark, 3));
  if (!stuck) return;
  let fake = 0;
  const jumping = () => (fake += 1000);
  const first = await killMarked(mark, jumping);
  assert.deepEqual(first.survived, [{ pid: stuck.pid, command: "stat", state: "D" }]);
  // Each look at the clock moves it a second: the 5 s wait after SIGKILL takes several; one not waited takes at most one.
  let looks = 0;
  const counting = () => (looks += 1) * 1000;
  const known = await killMarked(mark, counting, { givenUp: first.survived!.map((p) => p.pid) });
  assert.deepEqual(known.survived, [{ pid: stuck.pid, command: "stat", state: "D" }], "still named");
  assert.ok(looks <= 1, `the clock looked at ${looks} times: a wait for a process already given up`);
  looks = 0;
  const stop = new AbortController();
  stop.abort();
  const stopped = await killMarked(mark, counting, { signal: stop.signal });
  assert.deepEqual(stopped.survived, [{ pid: stuck.pid, command: "stat", state: "D" }]);
  // A moment for SIGKILL to take effect (two looks more), not the 5 s wait.
  assert.ok(looks <= 3, `the clock looked at ${looks} times: a wait after the caller stopped waiting`);
});

test("a stop whose caller stopped waiting in the grace period still gives SIGKILL its moment before it names what is left", async (t) => {
  const mark = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const stuck = await stuckFor(t, markedEnv(mark, 4));
  if (!stuck) return;
  // The clock moves only when a wait has begun: the grace period's moment after the abort passes, then SIGKILL's wait
  // begins at that time, so a wait that shares the grace period's moment ends at its first look.
  let now = 0;
  const looks: number[] = [];
  const clock = () => {
    looks.push(now);
    return (now += 100);
  };
  const stop = new AbortController();
  stop.abort();
  const stopped = await stopGroup(stuck.pid, clock, GRACE_MS, mark, { signal: stop.signal });
  assert.deepEqual(stopped.survived, [{ pid: stuck.pid, command: "stat", state: "D" }]);
  assert.equal(stopped.killedAfterMs, GRACE_MS);
  // The grace period's wait: its end, the abort's moment, then looks until 250 ms past it (3); SIGKILL's the same.
  assert.ok(looks.length >= 8, `the clock looked at ${looks.length} times: SIGKILL was given no moment of its own`);
});

test("what a stop says counts as stopped only those that ended: the ones SIGKILL has not ended are named apart", () => {
  const processes = [{ pid: 4242, command: "sleep" }, { pid: 4243, command: "stat" }, { pid: 4244, command: "cat" }];
  const stuck = (pid: number, command: string) => ({ pid, command, state: "D" });
  assert.equal(
    describeStopped({ processes, killedAfterMs: 3000, survived: [stuck(4243, "stat")] }, "firstboot left running"),
    "stopped 2 processes firstboot left running: 4242 sleep, 4244 cat (SIGTERM was ignored: SIGKILL after 3 s); 1 more is still there after SIGKILL: " +
      "4243 stat (state D: waiting in the kernel, often on a hung disk or network mount; it ends once that wait does, and `cat /proc/4243/stack` as root shows where it waits)",
  );
  assert.match(describeStopped({ processes, survived: processes.map((p) => stuck(p.pid, p.command)) }, "firstboot left running"), /^3 processes firstboot left running are still there after SIGKILL: 4242 sleep \(state D/);
  assert.equal(describeStopped({ processes: processes.slice(0, 1) }, "firstboot left running"), "stopped 1 process firstboot left running: 4242 sleep");
});

test("a group with nothing left: nothing to stop", async () => {
  const child = group("exit 0");
  await once(child, "exit");
  assert.deepEqual(await stopGroup(child.pid!, undefined, 300), { processes: [] });
});

/** The group's members once they are the programs named (a fork not yet exec'd is still named `sh`). */
async function waitForMembers(pgid: number, commands: string[]): Promise<number[]> {
  for (let tries = 0; tries < 400; tries++) {
    const rows = execFileSync("ps", ["-o", "pid=,comm=", "-g", String(pgid)], { encoding: "utf8" }).split("\n").filter((row) => row.trim());
    const members = rows.map((row) => row.trim().split(/\s+/));
    if (JSON.stringify(members.map(([, command]) => command).sort()) === JSON.stringify([...commands].sort())) return members.map(([pid]) => Number(pid));
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the group's members did not become ${commands.join(", ")}`);
}

/** A firstboot as a dead installer left it: marked, with a child in a session of its own, one in a group of its own and a double-forked grandchild, all ignoring SIGTERM. */
async function strayFirstboot(mark: string, attempt: number): Promise<{ folder: string; pids: number[]; leader: number }> {
  const folder = await mkdtemp(join(tmpdir(), "stratum-stray-"));
  // Nothing in it forks once it runs (a fork not yet exec'd would be one more `sh` in what a stop names): it waits
  // on a pipe no one ever opens for writing, and its TERM trap writes with a redirection, not `touch`.
  execFileSync("mkfifo", [join(folder, "never")]);
  const stray = `trap ': > "${folder}/got-term"' TERM; echo $$ >> "${folder}/pids"; while :; do read line < "${folder}/never"; done`;
  const script = [
    `setsid sh -c '${stray.replaceAll("'", "'\\''")}' &`,
    `python3 -c 'import os; os.setpgid(0, 0); os.execvp("sh", ["sh", "-c", os.environ["STRAY"]])' &`,
    `( sh -c '${stray.replaceAll("'", "'\\''")}' & ) `,
    stray,
  ].join("\n");
  const leader = spawn("sh", ["-c", script], { stdio: "ignore", detached: true, env: { ...process.env, STRAY: stray, ...markedEnv(mark, attempt) } }).pid!;
  for (let tries = 0; tries < 400; tries++) {
    const pids = (await readFile(join(folder, "pids"), "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
    // Four running, and the shells that forked them gone (on a busy machine a subshell outlives its `&` a while).
    if (pids.length === 4 && (await markedShells(mark)).every((pid) => pids.includes(pid))) return { folder, pids, leader };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the stray firstboot did not start its four processes");
}

/** The live processes whose environment carries the mark: the firstboot's own shells. */
async function markedShells(mark: string): Promise<number[]> {
  const found = await Promise.all(
    (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(async (name) => {
      const [environ, stat] = await Promise.all([readFile(`/proc/${name}/environ`, "latin1").catch(() => ""), readFile(`/proc/${name}/stat`, "utf8").catch(() => "")]);
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return environ.split("\0").some((v) => v.startsWith(`${FIRSTBOOT_MARK_VARIABLE}=${mark}/`)) && state !== "Z" ? [Number(name)] : [];
    }),
  );
  return found.flat();
}

/** Every one of the firstboot's own processes, and nothing besides them. */
function assertTook(processes: { pid: number; command: string }[], pids: number[]): void {
  const took = new Set(processes.map((p) => p.pid));
  for (const pid of pids) assert.ok(took.has(pid), `${pid} was not stopped`);
  assert.deepEqual(processes.filter((p) => !pids.includes(p.pid)), []);
}

test("a state dir's mark is the folder's, however it is reached: through a symlink, a relative path or a trailing slash", async () => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-state-"));
  const link = `${folder}-link`;
  await symlink(folder, link);
  const mark = firstbootMark(folder);
  assert.equal(firstbootMark(link), mark);
  assert.equal(firstbootMark(`${folder}/`), mark);
  assert.equal(firstbootMark(relative(process.cwd(), link)), mark);
  assert.notEqual(firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-"))), mark);
});

test("a dead installer's firstboot: every process carrying its mark is found, whatever group or session it moved to, and killed at once without SIGTERM", async () => {
  const mark = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const other = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const ours = await strayFirstboot(mark, 3);
  const theirs = await strayFirstboot(other, 1);
  try {
    const stopped = await killMarked(mark);
    assertTook(stopped.processes, ours.pids);
    assert.deepEqual([...new Set(stopped.processes.map((p) => p.attempt))], [3]);
    for (const pid of ours.pids) assert.equal(await alive(pid), false, `${pid} still runs`);
    assert.equal(await readFile(join(ours.folder, "got-term")).catch(() => undefined), undefined, "a stale firstboot gets no grace: SIGKILL only");
    for (const pid of theirs.pids) assert.equal(await alive(pid), true, "another state dir's firstboot is left alone");
    assert.deepEqual((await killMarked(mark)).processes, [], "nothing left the second time");
  } finally {
    await killMarked(other);
  }
});

test("a firstboot left running by an installer from before the mark had its own variable (it carried STRATUM_FIRSTBOOT, the --firstboot flag's) is found too", async () => {
  const mark = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const old = spawn("sleep", ["1000"], { stdio: "ignore", detached: true, env: { ...process.env, STRATUM_FIRSTBOOT: `${mark}/2` } });
  try {
    const stopped = await killMarked(mark);
    assert.deepEqual(stopped.processes.map((p) => [p.pid, p.attempt]), [[old.pid, 2]]);
    assert.equal(await alive(old.pid!), false);
  } finally {
    old.kill("SIGKILL");
  }
});

test("the mark is a variable of its own: the --firstboot flag's STRATUM_FIRSTBOOT, in firstboot's environment as the installer has it, is left as it is", () => {
  assert.deepEqual(Object.keys(markedEnv(firstbootMark("/var/lib/stratum"), 1)), [FIRSTBOOT_MARK_VARIABLE]);
  assert.notEqual(FIRSTBOOT_MARK_VARIABLE, "STRATUM_FIRSTBOOT");
});

test("a live group's stop takes the processes that left its group or session too", async () => {
  const mark = firstbootMark(await mkdtemp(join(tmpdir(), "stratum-state-")));
  const { pids, leader } = await strayFirstboot(mark, 1);
  const stopped = await stopGroup(leader, undefined, 200, mark);
  assertTook(stopped.processes, pids);
  assert.equal(stopped.killedAfterMs, 200);
  for (const pid of pids) assert.equal(await alive(pid), false, `${pid} still runs`);
});

test("a recorded group whose leader is gone is left alone: its id may be another program's now (after a reboot, or pids wrapped round)", async () => {
  // Another program's group whose leader has exited: its id is a dead pid, as a recorded one may be.
  const folder = await mkdtemp(join(tmpdir(), "stratum-orphan-"));
  const leader = spawn("sh", ["-c", `sleep 60 & echo $! > "${folder}/member"`], { stdio: "ignore", detached: true });
  const pid = leader.pid!;
  const startTime = startTimeOf(pid)!;
  await once(leader, "exit");
  const member = Number(await waitForFile(join(folder, "member")));
  try {
    assert.equal(await alive(member), true);
    assert.equal(await stopRecordedGroup({ pid, startTime }, undefined, 0), undefined);
    assert.equal(await alive(member), true, "another program's process was killed");
  } finally {
    process.kill(member, "SIGKILL");
  }
});

async function waitForFile(path: string): Promise<string> {
  for (let tries = 0; tries < 400; tries++) {
    const text = (await readFile(path, "utf8").catch(() => "")).trim();
    if (text) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} never came`);
}
