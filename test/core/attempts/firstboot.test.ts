import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { NewEvent } from "../../../core/attempts/events.ts";
import type { StepContext } from "../../../core/attempts/steps/context.ts";
import { EVENT_BYTES, MAX_LINE_BYTES, type OutputLimit, runFirstboot, stopLeftoverFirstboots } from "../../../core/attempts/steps/firstboot.ts";
import { firstbootMark, markedEnv, startTimeOf } from "../../../core/process/group.ts";
import type { AttemptRecord } from "../../../core/state/records.ts";
import { createRedactor } from "../../../core/secrets/index.ts";
import { tempDir, waitFor } from "../../helpers/installer.ts";
import { alive } from "../../helpers/processes.ts";
import { stuckFor } from "../../helpers/stuck-in-kernel.ts";

const SECRET = "jt-SECRET-4711-token";

function context(signal = new AbortController().signal) {
  const events: Omit<NewEvent, "step">[] = [];
  /** How many events had come when the step's success was recorded, at each call. */
  const succeededAt: number[] = [];
  const ctx: StepContext = {
    emit: (e) => events.push(e),
    backlogged: () => undefined,
    redactor: createRedactor(() => [SECRET]),
    now: () => new Date(),
    signal,
    succeeded: async () => void succeededAt.push(events.length),
  };
  return { ctx, events, succeededAt };
}

async function script(body: string): Promise<{ path: string; folder: string }> {
  const folder = await tempDir();
  const path = join(folder, "firstboot");
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return { path, folder };
}

type Record = Pick<AttemptRecord, "attempt" | "firstbootTail" | "firstbootGroup">;

function run(ctx: StepContext, executable: string, record: Record = { attempt: 1, firstbootTail: [] }, persist = async () => {}, mark = firstbootMark(randomUUID()), outputLimit?: OutputLimit) {
  return runFirstboot(ctx, { executable, nodeYamlPath: "/dev/null", mark, record, persist, outputLimit });
}

test("firstboot gets the installer's environment as it is: STRATUM_FIRSTBOOT (the --firstboot flag's variable) is not taken for the mark", async () => {
  const { path } = await script(`printf '%s\\n' "\${STRATUM_FIRSTBOOT-unset}"`);
  const given = process.env.STRATUM_FIRSTBOOT;
  process.env.STRATUM_FIRSTBOOT = "/opt/stratum/firstboot";
  try {
    const { ctx, events } = context();
    await run(ctx, path);
    assert.deepEqual(events.filter((e) => e.type === "step.log").map((e) => e.message), ["/opt/stratum/firstboot"]);
  } finally {
    if (given === undefined) delete process.env.STRATUM_FIRSTBOOT;
    else process.env.STRATUM_FIRSTBOOT = given;
  }
});

test("a secret that straddles the cut is redacted whole, never shown in part", async () => {
  const { path } = await script(`printf '%${MAX_LINE_BYTES - 6}s${SECRET}%s\\n' '' 'tail'`);
  const { ctx, events } = context();
  await run(ctx, path);
  assert.equal(events.length, 1);
  const [event] = events;
  assert.ok(!event!.message.includes(SECRET.slice(0, 4)), event!.message.slice(-80));
  assert.match(event!.message, /^ +\[redac … \[cut \d+ bytes\]$/);
  assert.ok(Buffer.byteLength(event!.message) <= MAX_LINE_BYTES + 30);
});

test("a firstboot that prints without end fills no state dir: past the attempt's limit its lines are counted, not kept", async () => {
  // Both pipes: the limit is the run's, not a stream's.
  const { path } = await script(`i=0; while [ $i -lt 300 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done; echo 'the real error' >&2; exit 3`);
  const { ctx, events } = context();
  const record: Record = { attempt: 1, firstbootTail: [] };
  await assert.rejects(run(ctx, path, record, async () => {}, undefined, { lines: 100, bytes: 1024 * 1024 }), /^StepFailure: firstboot exited with code 3; last output: /);
  const logs = events.filter((e) => e.type === "step.log");
  assert.equal(logs.length, 100, "the first 100 lines are kept as events");
  const [reached, ...others] = events.filter((e) => e.data?.limit);
  assert.equal(others.length, 0, "the limit is said once");
  assert.equal(events.indexOf(reached!), events.indexOf(logs.at(-1)!) + 1, "right after the last kept line");
  assert.match(reached!.message, /^firstboot has printed 100 lines, all this attempt keeps: what it prints from now on is counted, not kept/);
  assert.deepEqual(reached!.data!.limit, { lines: 100, bytes: 1024 * 1024 });
  const [counted, ...more] = events.filter((e) => e.data?.notKept);
  assert.equal(more.length, 0);
  assert.equal(events.at(-1), counted, "counted once both pipes closed");
  let printed = "the real error\n".length;
  for (let i = 0; i < 300; i++) printed += `out ${i}\n`.length + `err ${i}\n`.length;
  const kept = logs.reduce((sum, e) => sum + e.message.length + 1, 0);
  assert.deepEqual(counted!.data!.notKept, { lines: 501, bytes: printed - kept }, "every line and byte not kept is counted");
  assert.match(counted!.message, /^firstboot printed 501 more lines \([\d.]+ KiB\) past what an attempt keeps; they were not kept$/);
  assert.ok([reached, counted].every((e) => e!.level === "warn" && e!.type === "step.progress"));
});

test("past the limit the failure still names firstboot's last lines, redacted: the tail goes on", async () => {
  const { path } = await script(`i=0; while [ $i -lt 300 ]; do echo "err $i" >&2; i=$((i+1)); done; echo "the real error near ${SECRET}" >&2; exit 3`);
  const { ctx } = context();
  const record: Record = { attempt: 1, firstbootTail: [] };
  await assert.rejects(run(ctx, path, record, async () => {}, undefined, { lines: 10, bytes: 1024 * 1024 }), /^StepFailure: firstboot exited with code 3; last output: .*err 299 \| the real error near \[redacted\]$/s);
  assert.equal(record.firstbootTail.length, 50);
  assert.deepEqual(record.firstbootTail.slice(-2), ["err 299", "the real error near [redacted]"]);
  assert.ok(!record.firstbootTail.some((line) => line.includes(SECRET)));
});

test("the limit counts the events' bytes as the event log writes them: a line of control characters counts six bytes each", async () => {
  // 1000 \x01 a line: 6,000 bytes escaped in the event log, 1,000 as printed.
  const { path } = await script(`i=0; while [ $i -lt 20 ]; do head -c 1000 /dev/zero | tr '\\0' '\\001'; echo; i=$((i+1)); done`);
  const { ctx, events } = context();
  await run(ctx, path, undefined, undefined, undefined, { lines: 1000, bytes: 3 * (6002 + EVENT_BYTES) });
  assert.equal(events.filter((e) => e.type === "step.log").length, 3);
  assert.deepEqual(events.at(-1)!.data!.notKept, { lines: 17, bytes: 17 * 1001 });
});

test("the group is recorded and persisted while firstboot runs, and cleared once it is stopped", async () => {
  const { path } = await script("sleep 0.2");
  const { ctx } = context();
  const record: Record = { attempt: 1, firstbootTail: [] };
  const persisted: unknown[] = [];
  await run(ctx, path, record, async () => {
    persisted.push(structuredClone(record.firstbootGroup));
  });
  assert.equal(persisted.length, 1);
  assert.equal(typeof (persisted[0] as any).pid, "number");
  assert.equal(typeof (persisted[0] as any).startTime, "number");
  assert.equal(record.firstbootGroup, undefined);
});

test("stopping the installer stops the whole group, then the step ends with the stop's reason", async () => {
  const { path, folder } = await script(`trap '' TERM; echo $$ > "$(dirname "$0")/pid"; sleep 60 & wait`);
  const abort = new AbortController();
  const { ctx, events } = context(abort.signal);
  const running = run(ctx, path);
  await waitFor("firstboot to start", async () => ((await readFile(join(folder, "pid"), "utf8").catch(() => "")) ? true : undefined));
  abort.abort(new Error("installer stopping"));
  await assert.rejects(running, /installer stopping/);
  const stopped = events.find((e) => e.data?.stopped)!;
  assert.match(stopped.message, /^stopped 2 processes of firstboot as the installer stops: \d+ firstboot, \d+ sleep \(SIGTERM was ignored: SIGKILL after 3 s\)$/);
});

test("a firstboot that cannot be run fails the step, saying why", async () => {
  const { ctx } = context();
  await assert.rejects(run(ctx, "/nonexistent/firstboot"), /^StepFailure: firstboot exited with code 127; last output: .*\/nonexistent\/firstboot: not found$/);
});

test("firstboot starts only once its group is persisted; if that fails it never starts", async () => {
  const { path, folder } = await script(`touch "$(dirname "$0")/ran"`);
  const { ctx } = context();
  await assert.rejects(run(ctx, path, { attempt: 1, firstbootTail: [] }, async () => {
    throw new Error("ENOSPC: no space left on device");
  }), /ENOSPC/);
  assert.equal(await readFile(join(folder, "ran")).catch(() => undefined), undefined);
});

test("what firstboot leaves running is stopped when it ends, even a child that moved to a session of its own", async () => {
  const { path, folder } = await script(`setsid sh -c 'echo $$ > "${"$"}1/escaped"; exec sleep 60' sh "$(dirname "$0")" &\nwhile [ ! -s "$(dirname "$0")/escaped" ]; do sleep 0.05; done`);
  const { ctx, events } = context();
  await run(ctx, path);
  const escaped = Number(await readFile(join(folder, "escaped"), "utf8"));
  assert.equal(await alive(escaped), false, "the escaped child still runs");
  assert.match(events.find((e) => e.data?.stopped)!.message, new RegExp(`^stopped 1 process firstboot left running: ${escaped} sleep$`));
});

test("an exit 0 is recorded as the step's success after the output it printed and before what it left running is stopped", async () => {
  const { path } = await script(`sleep 60 &\necho "firstboot: last line"`);
  const { ctx, events, succeededAt } = context();
  await run(ctx, path);
  assert.deepEqual(events.map((e) => (e.data?.stopped ? "stopped" : e.message)), ["firstboot: last line", "stopped"]);
  assert.deepEqual(succeededAt, [1], "recorded once, after the line and before the stop");
});

test("a non-zero exit records no success", async () => {
  const { path } = await script(`echo "firstboot: broken"\nexit 3`);
  const { ctx, events, succeededAt } = context();
  await assert.rejects(run(ctx, path), /firstboot exited with code 3/);
  assert.deepEqual(events.map((e) => e.message), ["firstboot: broken"]);
  assert.deepEqual(succeededAt, []);
});

test("a process still carrying this state dir's mark when firstboot is to start is killed first: never two at once", async () => {
  const mark = firstbootMark(randomUUID());
  const stale = spawn("sleep", ["60"], { stdio: "ignore", detached: true, env: { ...process.env, ...markedEnv(mark, 1) } });
  const { path } = await script("true");
  const { ctx, events } = context();
  await run(ctx, path, { attempt: 2, firstbootTail: [] }, async () => {}, mark);
  assert.equal(await alive(stale.pid!), false);
  assert.equal(events[0]!.message, `stopped 1 process an earlier firstboot left running: ${stale.pid} sleep`);
});

test("a process of an earlier firstboot that SIGKILL has not ended (stuck in the kernel): firstboot is not started beside it, and the failure says why and where to look", async (t) => {
  const mark = firstbootMark(randomUUID());
  const stuck = await stuckFor(t, markedEnv(mark, 1));
  if (!stuck) return;
  const { path, folder } = await script(`touch "$(dirname "$0")/ran"`);
  const { ctx, events } = context();
  let fake = 0;
  ctx.monotonic = () => (fake += 1000);
  await assert.rejects(run(ctx, path, { attempt: 2, firstbootTail: [] }, async () => {}, mark), (err: Error) => {
    assert.equal((err as Error & { code?: string }).code, "FIRSTBOOT_FAILED");
    assert.match(err.message, new RegExp(`^firstboot was not started: a process of an earlier firstboot is still there after SIGKILL: ${stuck.pid} stat \\(state D: waiting in the kernel, .*\\); two firstboots would run at once\\. Retry the install once it has ended \\(\\\`ps -o pid,stat,wchan -p ${stuck.pid}\\\`\\), or reboot the node\\.$`));
    return true;
  });
  assert.equal(await readFile(join(folder, "ran")).catch(() => undefined), undefined, "firstboot never ran");
  assert.match(events[0]!.message, new RegExp(`^1 process an earlier firstboot left running is still there after SIGKILL: ${stuck.pid} stat \\(state D`));
  assert.deepEqual(events[0]!.data!.survived, [{ pid: stuck.pid, command: "stat", state: "D" }]);
});

test("a store kept aside at start holds no record of what ran: every process carrying the state dir's mark is killed all the same", async () => {
  const mark = firstbootMark(randomUUID());
  const stray = spawn("sleep", ["60"], { stdio: "ignore", detached: true, env: { ...process.env, ...markedEnv(mark, 4) } });
  const { notices } = await stopLeftoverFirstboots([], mark, true, async () => {}, async () => {});
  assert.equal(await alive(stray.pid!), false);
  assert.deepEqual(notices, [`stopped 1 process the interrupted firstboot of attempt 4 left running: ${stray.pid} sleep`]);
});

test("at start, a leftover firstboot process that SIGKILL has not ended is named as still there, not as stopped", async (t) => {
  const mark = firstbootMark(randomUUID());
  const stuck = await stuckFor(t, markedEnv(mark, 3));
  if (!stuck) return;
  let fake = 0;
  const emitted: NewEvent[] = [];
  const record = { attempt: 3, state: "running", firstbootTail: [] } as unknown as AttemptRecord;
  const { notices } = await stopLeftoverFirstboots([record], mark, false, async (_, e) => void emitted.push(e), async () => {}, () => (fake += 1000));
  assert.equal(notices.length, 1);
  assert.match(notices[0]!, new RegExp(`^1 process the interrupted firstboot of attempt 3 left running is still there after SIGKILL: ${stuck.pid} stat \\(state D`));
  assert.deepEqual(emitted[0]!.data!.survived, [{ pid: stuck.pid, command: "stat", state: "D" }]);
});

test("at start, a leftover firstboot whose recorded group is stuck in the kernel is waited for once, not again when the marked ones are killed", async (t) => {
  const mark = firstbootMark(randomUUID());
  const stuck = await stuckFor(t, markedEnv(mark, 5));
  if (!stuck) return;
  // Each look at the clock moves it a second: one 5 s wait after SIGKILL takes six looks, two take twelve.
  let looks = 0;
  const record = { attempt: 5, state: "running", firstbootTail: [], firstbootGroup: { pid: stuck.pid, startTime: await startTimeOf(stuck.pid) } } as unknown as AttemptRecord;
  const { notices } = await stopLeftoverFirstboots([record], mark, false, async () => {}, async () => {}, () => (looks += 1) * 1000);
  assert.match(notices[0]!, new RegExp(`^1 process the interrupted firstboot of attempt 5 left running is still there after SIGKILL: ${stuck.pid} stat \\(state D`));
  assert.equal(notices.length, 1);
  assert.ok(looks <= 8, `the clock looked at ${looks} times: the stuck process waited for twice`);
});

test("a stop that comes while firstboot's start kills what an earlier one left stuck in the kernel: the step ends with the stop, without the wait, and never starts firstboot", async (t) => {
  const mark = firstbootMark(randomUUID());
  const stuck = await stuckFor(t, markedEnv(mark, 1));
  if (!stuck) return;
  const { path, folder } = await script(`touch "$(dirname "$0")/ran"`);
  const stop = new AbortController();
  stop.abort(new Error("the service stops"));
  const { ctx } = context(stop.signal);
  let looks = 0;
  ctx.monotonic = () => (looks += 1) * 1000;
  await assert.rejects(run(ctx, path, { attempt: 2, firstbootTail: [] }, async () => {}, mark), /^Error: the service stops$/);
  assert.ok(looks <= 3, `the clock looked at ${looks} times: the 5 s wait after SIGKILL ran under a stop`);
  assert.equal(await readFile(join(folder, "ran")).catch(() => undefined), undefined, "firstboot never ran");
});

test("a stop that comes as firstboot exits 0 by itself, before the service has seen the exit: firstboot's success is recorded, not lost (a retry would run it again)", async () => {
  const { path } = await script(`sleep 0.2\nexit 0`);
  const controller = new AbortController();
  const { ctx, succeededAt } = context(controller.signal);
  const record: Record = { attempt: 1, firstbootTail: [] };
  let pid: number | undefined;
  const running = run(ctx, path, record, async () => void (pid = record.firstbootGroup?.pid));
  await waitFor("firstboot to start", async () => pid);
  // The event loop held until firstboot has exited (a zombie): the service learns of the exit only after the stop.
  const deadline = Date.now() + 20_000;
  const zombie = () => /^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  while (!zombie() && Date.now() < deadline);
  assert.ok(zombie(), "firstboot has exited, and the service has not seen it yet");
  controller.abort(new Error("the state dir refuses writes"));
  await running;
  assert.equal(succeededAt.length, 1, "its success is recorded");
});

/** An unencrypted RSA key (PKCS#1) and an encrypted one as OpenSSL's legacy PEM writes it, with its two header lines. */
function privateKeys(): string[] {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
  return [
    privateKey.export({ type: "pkcs1", format: "pem" }) as string,
    privateKey.export({ type: "pkcs1", format: "pem", cipher: "aes-128-cbc", passphrase: "pass" }) as string,
    privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  ];
}

/** The lines of a PEM key that are its own: its body and headers, not the BEGIN and END lines any key has. */
const keyLines = (pem: string) => pem.split("\n").filter((line) => line.length >= 4 && !line.startsWith("-----"));

test("a private key a firstboot prints, a line at a time, on both pipes: no line of it in any event or the tail, whatever kind it is; the lines after it show", async () => {
  const { path, folder } = await script(`d="$(dirname "$0")"\nfor f in "$d"/key*; do echo "key $f:"; cat "$f"; cat "$f" >&2; echo "after $f"; done\nexit 1`);
  const keys = privateKeys();
  for (const [i, key] of keys.entries()) await writeFile(join(folder, `key${i}`), key);
  const { ctx, events } = context();
  const record: Record = { attempt: 1, firstbootTail: [] };
  const failure = await run(ctx, path, record).then(() => assert.fail("firstboot exited 1"), (err: Error) => err.message);
  const shown = [...events.map((e) => e.message), ...record.firstbootTail, failure].join("\n");
  for (const line of keys.flatMap(keyLines)) assert.ok(!shown.includes(line), `shown: ${line}\n${shown}`);
  for (let i = 0; i < keys.length; i++) assert.equal(events.filter((e) => e.message === `after ${join(folder, `key${i}`)}`).length, 1, shown);
});

test("a private key a firstboot prints without its END line: none of its lines shows, and the output after it does", async () => {
  const [key] = privateKeys();
  const { path, folder } = await script(`head -n 8 "$(dirname "$0")/key"\necho "firstboot: next step."`);
  await writeFile(join(folder, "key"), key!);
  const { ctx, events } = context();
  await run(ctx, path);
  const shown = events.map((e) => e.message).join("\n");
  for (const line of keyLines(key!)) assert.ok(!shown.includes(line), `shown: ${line}\n${shown}`);
  assert.ok(shown.includes("firstboot: next step."), shown);
});

test("a stop that comes while firstboot's group is being recorded: firstboot never starts (its gate stays shut), and the step ends as stopped", async () => {
  const { path, folder } = await script(`touch "$(dirname "$0")/ran"`);
  const controller = new AbortController();
  const { ctx } = context(controller.signal);
  const record: Record = { attempt: 1, firstbootTail: [] };
  const stopping = new Error("installer stopping");
  await assert.rejects(run(ctx, path, record, async () => controller.abort(stopping)), (err) => err === stopping);
  assert.equal(await readFile(join(folder, "ran"), "utf8").catch(() => "never"), "never", "firstboot ran after the stop");
});
