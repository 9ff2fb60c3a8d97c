import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { stateLayout } from "../../core/state/layout.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { finished, install, putDraft } from "../helpers/install-rig.ts";
import { harness, logLines, readSse, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { alive } from "../helpers/processes.ts";
import { stuckMount } from "../helpers/stuck-in-kernel.ts";

const lab = harness();

async function pidIn(folder: string, name: string): Promise<number | undefined> {
  const text = await readFile(join(folder, name), "utf8").catch(() => "");
  return /^\d+\n/.test(text) ? Number.parseInt(text, 10) : undefined;
}

/** Kills what a test's firstboot may have left behind when the installer under test did not. */
function reap(folder: string, names: string[]) {
  lab.defer(async () => {
    for (const name of names) {
      const pid = await pidIn(folder, name);
      if (pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  });
}

async function rig(script: string, options: { folder?: string; readiness?: ReadinessServer; env?: Record<string, string> } = {}) {
  const folder = options.folder ?? (await tempDir());
  const readiness = options.readiness ?? (await startReadinessServer({ port: 0, scenario: "ready", stageMs: 200 }));
  if (!options.readiness) lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, script);
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    env: options.env,
    args: ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "30", "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  return { installer, readiness, folder };
}

/** Puts the valid draft and starts an attempt; its number. */
async function attempt(installer: RunningInstaller): Promise<number> {
  await putDraft(installer);
  return (await install(installer)).attempt;
}

async function events(installer: RunningInstaller, attempt: number): Promise<any[]> {
  return (await installer.request(`/v1/installer/install/events?attempt=${attempt}`)).json.events;
}

const verdict = (installer: RunningInstaller, attempt: number) => finished(installer, attempt, 120_000);

describe("firstboot runs as a unit", () => {
  test("the step ends when firstboot exits; what it left running is stopped and named in an event before the next step starts", async () => {
    const { installer, folder } = await rig(`#!/bin/sh
dir="$(dirname "$0")"
(sleep 300 & echo $! > "$dir/sleep.pid"; wait; echo late) &
echo $! > "$dir/helper.pid"
until [ -s "$dir/sleep.pid" ]; do sleep 0.05; done
# Until the forked child has become sleep: the installer names what it stops by its command.
until [ "$(cat "/proc/$(cat "$dir/sleep.pid")/comm" 2>/dev/null)" = sleep ]; do sleep 0.05; done
echo "firstboot: started a helper"
`);
    reap(folder, ["helper.pid", "sleep.pid"]);
    await attempt(installer);
    // Its exit 0 is its success at once (SPEC §6: the step ends when firstboot exits); the readiness step starts only
    // once what it left running is gone: never a next step beside an old firstboot group.
    const seen = await waitFor(
      "the readiness step to start",
      async () => {
        const all = await events(installer, 1);
        return all.some((e) => e.type === "step.started" && e.step === "readiness") ? all : undefined;
      },
      60_000,
    );
    const [helper, sleep] = [(await pidIn(folder, "helper.pid"))!, (await pidIn(folder, "sleep.pid"))!];
    assert.equal(await alive(helper), false, "the helper is gone once the next step started");
    assert.equal(await alive(sleep), false, "and so is its sleep");
    const at = (match: (e: any) => boolean) => seen.findIndex(match);
    const finishedAt = at((e) => e.type === "step.finished" && e.step === "firstboot");
    assert.equal(seen[finishedAt].data.outcome, "succeeded");
    const stoppedAt = at((e) => e.step === "firstboot" && e.data?.stopped);
    assert.ok(finishedAt < stoppedAt && stoppedAt < at((e) => e.type === "step.started" && e.step === "readiness"), "exit, then what it left stopped, then readiness");
    const stopped = seen[stoppedAt];
    assert.ok(stopped, "an event names what was stopped");
    assert.equal(stopped.level, "warn");
    assert.match(stopped.message, /^stopped 2 processes firstboot left running: \d+ \S+, \d+ \S+$/);
    assert.ok(stopped.data.stopped.some((p: any) => p.pid === helper));
    assert.ok(stopped.data.stopped.some((p: any) => p.pid === sleep && p.command === "sleep"));
    for (const { pid } of stopped.data.stopped) assert.equal(await alive(pid), false, `${pid} is gone`);
    assert.equal((await verdict(installer, 1)).outcome, "succeeded");
    assert.ok(!(await events(installer, 1)).some((e) => e.message === "late"));
  });

  /** An attempt whose firstboot ignores TERM and INT and waits on a helper of its own: the pids of both, once they run. */
  async function stubbornFirstboot() {
    const { installer, folder } = await rig(`#!/bin/sh
trap '' TERM INT
echo $$ > "$(dirname "$0")/firstboot.pid"
sleep 300 &
echo $! > "$(dirname "$0")/helper.pid"
echo "firstboot: waiting"
wait
`);
    reap(folder, ["firstboot.pid", "helper.pid"]);
    await attempt(installer);
    const pids = await waitFor("firstboot to start its helper", async () => {
      const [firstboot, helper] = [await pidIn(folder, "firstboot.pid"), await pidIn(folder, "helper.pid")];
      return firstboot && helper ? [firstboot, helper] : undefined;
    });
    return { installer, pids };
  }

  test("SIGTERM to the installer stops a firstboot group that ignores TERM before the installer exits; the log's last line says the stop completed, how long it took and that firstboot had to be killed", async () => {
    const { installer, pids } = await stubbornFirstboot();
    assert.equal(await alive(pids[1]!), true);
    assert.equal(await installer.stop(), 0);
    for (const pid of pids) assert.equal(await alive(pid), false, `${pid} of the firstboot group is gone once the installer exited`);
    const kept = (await readFile(stateLayout(installer.stateDir).serviceLog, "utf8")).trim().split("\n");
    for (const lines of [installer.output().stderr.trim().split("\n"), kept]) {
      const last = JSON.parse(lines.at(-1)!);
      assert.deepEqual({ ...last, time: undefined, ms: undefined }, { time: undefined, level: "info", message: "stopped", signal: "SIGTERM", ms: undefined, attempt: 1, firstbootStopped: 2, firstbootKilled: true });
      assert.ok(last.ms >= 3000, `the stop took the grace period at least: ${last.ms} ms`);
    }
  });

  test("a firstboot stuck in the kernel when the installer stops: the stop still ends, and its event and the log's last line name the process SIGKILL has not ended", async (t) => {
    const mount = await stuckMount();
    if (!mount) return t.skip("needs root and a FUSE mount");
    lab.defer(() => mount.release());
    const { installer, folder } = await rig(`#!/bin/sh\necho $$ > "$(dirname "$0")/firstboot.pid"\nexec stat "${mount.file}"\n`);
    await attempt(installer);
    assert.equal(await mount.lookedUp(), true);
    const pid = (await pidIn(folder, "firstboot.pid"))!;
    assert.equal(await installer.stop(), 0);
    assert.equal(await alive(pid), true, "still there: SIGKILL waits for the kernel");
    const kept = (await readFile(stateLayout(installer.stateDir).serviceLog, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual({ ...kept.at(-1), time: undefined, ms: undefined }, { time: undefined, level: "info", message: "stopped", signal: "SIGTERM", ms: undefined, attempt: 1, firstbootStopped: 0, firstbootKilled: true, firstbootSurvived: [pid] });
    const event = (await readFile(stateLayout(installer.stateDir).eventsOf(1), "utf8")).trim().split("\n").map((line) => JSON.parse(line)).find((e) => e.data?.survived);
    assert.match(event.message, new RegExp(`^1 process of firstboot as the installer stops is still there after SIGKILL \\(SIGTERM was ignored: SIGKILL after 3 s\\): ${pid} stat \\(state D: waiting in the kernel`));
    await mount.release();
    await waitFor("the process to end once its wait did", async () => !(await alive(pid)));
  });

  test("SIGHUP (the terminal or SSH session the installer ran in went away) interrupts nothing: the install goes on to its verdict, the installer serves on and says so in its log; SIGTERM still stops it", async () => {
    const { installer, folder } = await rig(`#!/bin/sh\nuntil [ -e "$(dirname "$0")/go" ]; do sleep 0.05; done\necho "firstboot: done"\n`);
    await attempt(installer);
    await waitFor("firstboot to run", async () => (await events(installer, 1)).some((e) => e.type === "step.started" && e.step === "firstboot") || undefined);
    installer.proc.kill("SIGHUP");
    const hungUp = await waitFor("the log's word of it", async () => logLines(installer).find((l) => l.message === "the terminal hung up (SIGHUP): serving on without it"));
    assert.equal(hungUp.level, "warn");
    assert.match(hungUp.hint, /^stop it with `kill -TERM \d+`; its log goes on in .*service\.log$/);
    await writeFile(join(folder, "go"), "");
    assert.equal((await verdict(installer, 1)).outcome, "succeeded");
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    assert.equal(await installer.stop(), 0);
  });

  test("SIGTERM ends an open event stream cleanly: what the stop did, then a comment saying the installer stops, then the end (no reset)", async () => {
    const { installer, pids } = await stubbornFirstboot();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const reading = readSse(`${installer.url}/v1/installer/install/events?attempt=1`, installer.code, { opened, timeoutMs: 60_000 });
    await open;
    installer.proc.kill("SIGTERM");
    const stream = await reading;
    assert.equal(await installer.exited, 0, installer.output().stderr);
    assert.equal(stream.broke, undefined, "the stream ended, it did not break off");
    assert.equal(stream.comments.at(-1), ": installer stopping", "its last line says the installer stops");
    const events = stream.messages.map((m) => JSON.parse(m.data));
    assert.ok(!events.some((e) => e.type === "attempt.finished"), "the attempt did not finish: the next start marks it");
    assert.match(events.at(-1).message, /^stopped 2 processes of firstboot as the installer stops: .*SIGKILL after 3 s\)$/, "what the stop did came before the end");
    for (const pid of pids) assert.equal(await alive(pid), false);
  });

  test("a stop lets an event stream its client is slow to read go out whole before the exit: the client still gets the stream's end, after the comment, not a reset", async () => {
    // More output than the loopback's socket buffers hold: the rest waits in the installer when its client does not read.
    const { installer, folder } = await rig(`#!/bin/sh
echo $$ > "$(dirname "$0")/firstboot.pid"
head -c 24000000 /dev/zero | tr '\\0' x | fold -w 1000
touch "$(dirname "$0")/printed"
exec sleep 300
`);
    reap(folder, ["firstboot.pid"]);
    await attempt(installer);
    await waitFor("firstboot to print", async () => (existsSync(join(folder, "printed")) ? true : undefined), 60_000);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    let read!: () => void;
    const reading = readSse(`${installer.url}/v1/installer/install/events?attempt=1`, installer.code, { opened, holdUntil: new Promise<void>((resolve) => (read = resolve)), timeoutMs: 120_000 });
    await open;
    installer.proc.kill("SIGTERM");
    // Its services stopped (firstboot gone; the stream's end then waits in the installer for its client): only then does the client read on.
    const firstboot = (await pidIn(folder, "firstboot.pid"))!;
    await waitFor("the stop to end firstboot", async () => ((await alive(firstboot)) ? undefined : true), 60_000);
    read();
    const stream = await reading;
    assert.equal(stream.broke, undefined, `the stream ended, it did not break off (after ${stream.messages.length} events)`);
    assert.equal(stream.comments.at(-1), ": installer stopping");
    assert.equal(await installer.exited, 0, installer.output().stderr);
  });

  test("a stop closes the idle keep-alive connections at once (Node 18's close() leaves them open): a request sent on one while firstboot is being stopped is not answered", async () => {
    const { installer } = await stubbornFirstboot();
    // The helpers' agent keeps this connection open for the next request.
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    installer.proc.kill("SIGTERM");
    await waitFor("the installer to say it stops", async () => (installer.output().stderr.includes('"message":"stopping"') ? true : undefined));
    await assert.rejects(installer.request("/v1/installer/status"), "no answer from an installer that is stopping");
    assert.equal(await installer.exited, 0, installer.output().stderr);
  });

  test("a second Ctrl-C or SIGTERM while the installer stops does not cut the stop short: the firstboot group is still stopped, the lock let go, exit 0", async () => {
    const { installer, pids } = await stubbornFirstboot();
    installer.proc.kill("SIGINT");
    await waitFor("the installer to say it stops", async () => (installer.output().stderr.includes('"message":"stopping"') ? true : undefined));
    installer.proc.kill("SIGTERM");
    assert.equal(await installer.exited, 0, installer.output().stderr);
    for (const pid of pids) assert.equal(await alive(pid), false, `${pid} of the firstboot group is gone once the installer exited`);
    assert.equal(existsSync(stateLayout(installer.stateDir).lock), false, "the lock is let go");
    assert.match(installer.output().stderr, /^installer: stopping: a running firstboot's group is stopped first \(at most 3 s, then killed\); send SIGTERM once more to exit at once, leaving it running$/m);
  });

  test("a third Ctrl-C is obeyed at once, saying that firstboot is left running", async () => {
    const { installer, pids } = await stubbornFirstboot();
    installer.proc.kill("SIGINT");
    await waitFor("the installer to say it stops", async () => (installer.output().stderr.includes('"message":"stopping"') ? true : undefined));
    installer.proc.kill("SIGINT");
    await waitFor("the installer to say how to exit at once", async () => (installer.output().stderr.includes("once more to exit at once") ? true : undefined));
    installer.proc.kill("SIGINT");
    assert.equal(await installer.exited, 130, installer.output().stderr);
    assert.match(installer.output().stderr, /^installer: SIGINT again: exiting now; a firstboot still running is left running, unsupervised$/m);
    assert.equal(await alive(pids[1]!), true, "as it says: left running (the test reaps it)");
  });

  test("after kill -9 the next start stops the old group before anything runs; a retry runs exactly one firstboot", async () => {
    const folder = await tempDir();
    const script = `#!/bin/sh
dir="$(dirname "$0")"
echo $$ >> "$dir/runs"
exec 9>"$dir/lock"
if ! flock -n 9; then echo "another firstboot is still running" >&2; exit 9; fi
trap '' TERM
echo $$ > "$dir/firstboot.pid"
sleep \${FIRSTBOOT_SLEEP:-0} &
echo $! > "$dir/helper.pid"
wait
echo "firstboot: done"
`;
    reap(folder, ["firstboot.pid", "helper.pid"]);
    const first = await rig(script, { folder, env: { FIRSTBOOT_SLEEP: "300" } });
    await attempt(first.installer);
    const pids = await waitFor("firstboot to start its helper", async () => {
      const [firstboot, helper] = [await pidIn(folder, "firstboot.pid"), await pidIn(folder, "helper.pid")];
      return firstboot && helper ? [firstboot, helper] : undefined;
    });
    await first.installer.kill9();
    for (const pid of pids) assert.equal(await alive(pid), true, `${pid} outlived the killed installer`);

    const second = await rig(script, { folder, readiness: first.readiness, env: { FIRSTBOOT_SLEEP: "0" } });
    for (const pid of pids) assert.equal(await alive(pid), false, `${pid} was stopped before the installer listened`);
    assert.match(second.installer.banner, /NOTICE: stopped 2 processes the interrupted firstboot of attempt 1 left running/);
    assert.equal((await verdict(second.installer, 1)).code, "INTERRUPTED");

    assert.equal(await attempt(second.installer), 2);
    const retry = await verdict(second.installer, 2);
    assert.equal(retry.outcome, "succeeded", retry.message);
    const runs = (await readFile(join(folder, "runs"), "utf8")).split("\n").filter(Boolean);
    assert.equal(runs.length, 2, "one firstboot before the crash, one in the retry");
  });

  test("a 200 MB line without a newline is cut at 16 KiB with a note; memory stays bounded", async () => {
    const { installer } = await rig(`#!/bin/sh
head -c 200000000 /dev/zero | tr '\\0' x
echo
echo "firstboot: done"
`);
    await attempt(installer);
    const result = await verdict(installer, 1);
    assert.equal(result.outcome, "succeeded", result.message);
    const logs = (await events(installer, 1)).filter((e) => e.type === "step.log");
    const long = logs.find((e) => e.data.truncatedBytes);
    assert.ok(long, "the long line is an event");
    const cut = 200_000_000 - 16 * 1024;
    assert.deepEqual(long.data, { stream: "stdout", truncatedBytes: cut });
    assert.equal(long.message, `${"x".repeat(16 * 1024)} … [cut ${(cut / 1024 ** 2).toFixed(1)} MiB]`);
    assert.ok(logs.some((e) => e.message === "firstboot: done"));
    const status = await readFile(`/proc/${installer.proc.pid}/status`, "utf8");
    const peakMiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
    process.stdout.write(`# installer peak RSS (VmHWM) after 200 MB of firstboot output: ${peakMiB.toFixed(0)} MiB\n`);
    assert.ok(peakMiB < 200, `peak RSS ${peakMiB.toFixed(0)} MiB`);
  });
});
