import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { GRACE_MS, startTimeOf, stopGroup, stopRecordedGroup } from "../../../core/process/group.ts";
import { alive } from "../../helpers/processes.ts";

const now = () => new Date();

function group(script: string): ChildProcess {
  return spawn("sh", ["-c", script], { stdio: "ignore", detached: true });
}

test("a recorded pid whose start time differs is a reused pid: it is left alone", async () => {
  const pid = group("exec sleep 60").pid!;
  const startTime = startTimeOf(pid)!;
  assert.equal(typeof startTime, "number");
  try {
    assert.equal(await stopRecordedGroup({ pid, startTime: startTime + 1 }, now), undefined);
    assert.equal(await alive(pid), true);
    assert.equal(await stopRecordedGroup({ pid, startTime: null }, now), undefined, "no start time, no proof: left alone");
    assert.equal(await alive(pid), true);
    assert.deepEqual(await stopRecordedGroup({ pid, startTime }, now), { processes: [{ pid, command: "sleep" }] });
    assert.equal(await alive(pid), false);
  } finally {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

test("a group that ignores SIGTERM gets SIGKILL after the grace period; every member is named", async () => {
  const pid = group("trap '' TERM; sleep 60 & sleep 60 & wait").pid!;
  const members = await waitForMembers(pid, 3);
  const stopped = await stopGroup(pid, now, 300);
  assert.equal(stopped.killedAfterMs, 300);
  assert.deepEqual(stopped.processes.map((p) => p.pid).sort(), members.sort());
  assert.deepEqual(stopped.processes.map((p) => p.command).sort(), ["sh", "sleep", "sleep"]);
  for (const member of members) assert.equal(await alive(member), false);
});

test("the grace period runs on the injected clock: one that jumps a second each look ends it without the real wait", async () => {
  const pid = group("trap '' TERM; exec sleep 60").pid!;
  await waitForMembers(pid, 1);
  let fake = 0;
  const jumping = () => new Date((fake += 1000));
  const started = Date.now();
  const stopped = await stopGroup(pid, jumping);
  assert.equal(stopped.killedAfterMs, GRACE_MS);
  assert.ok(Date.now() - started < GRACE_MS / 2, `took ${Date.now() - started} ms`);
  assert.equal(await alive(pid), false);
});

test("a group with nothing left: nothing to stop", async () => {
  const child = group("exit 0");
  await once(child, "exit");
  assert.deepEqual(await stopGroup(child.pid!, now, 300), { processes: [] });
});

async function waitForMembers(pgid: number, count: number): Promise<number[]> {
  for (let tries = 0; tries < 400; tries++) {
    const pids = execFileSync("pgrep", ["-g", String(pgid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
    if (pids.length === count) return pids;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the group did not reach ${count} members`);
}
