import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { createEventLog } from "../../../core/attempts/event-log.ts";
import { AttemptEventLog, type InstallEvent, readEvents } from "../../../core/attempts/events.ts";
import { InstallerError } from "../../../core/common/errors.ts";
import { stateLayout } from "../../../core/state/layout.ts";

const now = () => new Date("2026-12-02T12:00:00Z");
const failed = (cause: unknown) => new Error(`refused: ${String(cause)}`);

async function logFile(content: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "event-log-")), "attempt-1.jsonl");
  await writeFile(path, content);
  return path;
}

const line = (seq: number) => `${JSON.stringify({ seq, attempt: 1, time: now().toISOString(), type: "step.log", level: "info", message: `line ${seq}` })}\n`;

test("a torn last line (kill -9 mid-write) is cut off, so the next event is whole and numbered on", async () => {
  const path = await logFile(`${line(1)}${line(2)}{"seq":3,"attempt":1,"ti`);
  const log = await AttemptEventLog.open(1, path, now, failed);
  log.append({ type: "step.log", level: "info", message: "after the crash" });
  await log.close();
  const events = await readEvents(path, 0);
  assert.deepEqual(events.map((e) => e.seq), [1, 2, 3]);
  assert.equal(events[2]!.message, "after the crash");
  assert.ok((await readFile(path, "utf8")).endsWith("}\n"));
});

test("a fresh log starts empty; what was under the attempt's name (a store kept aside forgot the attempts) is kept aside beside it, never overwritten", async () => {
  const path = await logFile(`${line(1)}${line(2)}`);
  const log = await AttemptEventLog.open(1, path, now, failed, true);
  log.append({ type: "attempt.started", level: "info", message: "started" });
  await log.close();
  assert.deepEqual((await readEvents(path, 0)).map((e) => [e.seq, e.message]), [[1, "started"]]);
  const kept = `${path}.kept-2026-12-02T12-00-00.000Z`;
  assert.equal(await readFile(kept, "utf8"), `${line(1)}${line(2)}`);
  assert.deepEqual((await readdir(dirname(path))).sort(), ["attempt-1.jsonl", "attempt-1.jsonl.kept-2026-12-02T12-00-00.000Z"]);
});

test("a refused write keeps the events queued, rejects flush, tells onFailure, and a later flush writes them", async () => {
  const path = await logFile("");
  const log = await AttemptEventLog.open(1, path, now, failed);
  const heard: string[] = [];
  log.onFailure((err) => heard.push(err.message));
  // Closing the file under the log makes every write fail, as a full disk would.
  const file = (log as unknown as { file: { appendFile: (t: string) => Promise<void> } }).file;
  const realAppend = file.appendFile.bind(file);
  file.appendFile = () => Promise.reject(Object.assign(new Error("no space"), { code: "ENOSPC" }));
  log.append({ type: "step.log", level: "info", message: "one" });
  log.append({ type: "step.log", level: "info", message: "two" });
  await assert.rejects(log.flush(), /refused/);
  assert.equal(heard.length, 1);
  assert.equal(log.backlog, 2);
  file.appendFile = realAppend;
  await log.flush();
  assert.equal(log.backlog, 0);
  await log.close();
  assert.deepEqual((await readEvents(path, 0)).map((e) => e.message), ["one", "two"]);
});

/** A log as the writer leaves it, with what a bad day adds: lines of every length, non-ASCII text, junk lines, a torn tail. */
function longLog(count: number): string {
  const lines: string[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const message = seq % 97 === 0 ? `${"é✓".repeat(seq % 5000)} ${seq}` : `line ${seq} ${"x".repeat((seq * 7919) % 300)}`;
    lines.push(`${JSON.stringify({ seq, attempt: 1, time: now().toISOString(), type: "step.log", level: "info", message })}\n`);
    if (seq % 1013 === 0) lines.push("not an event\n", "{broken\n", "\n", '{"no":"seq"}\n');
  }
  return `${lines.join("")}{"seq":${count + 1},"attempt":1,"ti`;
}

test("a page from anywhere in a long log is what reading the whole log and skipping to it gives", async () => {
  const count = 3000;
  const path = await logFile(longLog(count));
  const whole = await readEvents(path, 0);
  assert.equal(whole.length, count);
  for (const after of [0, 1, 2, 17, 96, 97, 499, 500, 1012, 1013, 1234, 2998, 2999, 3000, 3001, 5000]) {
    for (const limit of [1, 7, 1000, Number.POSITIVE_INFINITY]) {
      const expected = whole.filter((e) => e.seq > after).slice(0, limit);
      assert.deepEqual(await readEvents(path, after, limit), expected, `after ${after}, limit ${limit}`);
    }
  }
});

test("a page deep in a long log reads the lines near it, not the whole log before it", async (t) => {
  // 20,000 events: a flooding firstboot's log. Paging through it (or an event stream resumed from 0) asks for
  // every 1,000 of them in turn; a page that read the log from its start would make the whole read quadratic.
  const path = await logFile(longLog(20_000));
  const parse = t.mock.method(JSON, "parse");
  const page = await readEvents(path, 19_000, 100);
  assert.deepEqual(page.map((e) => e.seq), Array.from({ length: 100 }, (_, i) => 19_001 + i));
  assert.ok(parse.mock.callCount() < 2000, `${parse.mock.callCount()} lines parsed for a page of 100`);
});

test("while the state dir refuses writes, the events already on disk are still read (a page, a follow's replay): a reader is not refused for the writer's trouble", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "event-log-"));
  const events = createEventLog(stateDir, now);
  const log = await events.writer(1, true);
  log.append({ type: "attempt.started", level: "info", message: "started" });
  await log.flush();
  const file = (log as unknown as { file: { appendFile: (t: string) => Promise<void> } }).file;
  file.appendFile = () => Promise.reject(Object.assign(new Error("no space"), { code: "ENOSPC" }));
  log.append({ type: "step.log", level: "info", message: "not on disk" });
  log.append({ type: "attempt.finished", level: "error", message: "failed" });
  const page = await events.page(1, 0, 100);
  assert.deepEqual(page.events.map((e) => e.message), ["started"], "only what is on disk: an event not written may yet be lost");
  assert.equal(page.finished, false, "its attempt.finished is not on disk yet");
  const controller = new AbortController();
  const followed = events.follow(1, 0, controller.signal);
  assert.deepEqual((await followed.next()).value?.map((e: InstallEvent) => e.message), ["started"]);
  controller.abort();
  await followed.return(undefined);
});

test("a link in place of an attempt's event log (a killed attempt's, reopened at start) is not appended through: refused as a storage error naming it and what to do; the file it leads to is left as it is", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "event-log-"));
  const { events: folder, eventsOf } = stateLayout(stateDir);
  await mkdir(folder, { mode: 0o700 });
  const outside = join(await mkdtemp(join(tmpdir(), "event-log-outside-")), "elsewhere.jsonl");
  await writeFile(outside, line(1));
  await symlink(outside, eventsOf(1));
  const events = createEventLog(stateDir, now);
  await assert.rejects(events.writer(1), (err: Error) => {
    assert.ok(err instanceof InstallerError && err.code === "INSUFFICIENT_STORAGE", err.message);
    assert.match(err.detail, new RegExp(`^The state dir ${stateDir} cannot be written \\(ELOOP: a link is where a file goes\\); nothing was changed\\. ${eventsOf(1)} is a link, not a file: move it out of the way, then retry`));
    return true;
  });
  assert.equal(await readFile(outside, "utf8"), line(1), "nothing appended through the link");
});

test("a link in place of an attempt's event log is not read through (a page, a follow's replay, a page deep in it): refused, saying it is a link (ELOOP); the events of the file it leads to are never answered", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "event-log-"));
  const { events: folder, eventsOf } = stateLayout(stateDir);
  await mkdir(folder, { mode: 0o700 });
  const outside = join(await mkdtemp(join(tmpdir(), "event-log-outside-")), "elsewhere.jsonl");
  await writeFile(outside, `${line(1)}${line(2)}`);
  await symlink(outside, eventsOf(1));
  const events = createEventLog(stateDir, now);
  const refused = { code: "INTERNAL", detail: /^the event log .+attempt-1\.jsonl is a symbolic link: / };
  for (const after of [0, 1]) await assert.rejects(events.page(1, after, 100), refused);
  await assert.rejects(events.follow(1, 0, new AbortController().signal).next(), refused);
  await assert.rejects(readEvents(eventsOf(1), 0), refused);
});
