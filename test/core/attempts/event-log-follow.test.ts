import assert from "node:assert/strict";
import { access, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createEventLog } from "../../../core/attempts/event-log.ts";
import type { AttemptEventLog, InstallEvent } from "../../../core/attempts/events.ts";

const now = () => new Date("2026-12-02T12:00:00Z");
const fresh = async () => createEventLog(await mkdtemp(join(tmpdir(), "events-")), now);
const log = (writer: AttemptEventLog, count: number) => {
  for (let i = 0; i < count; i++) writer.append({ type: "step.log", level: "info", message: `line ${writer.lastSeq + 1}` });
};
const finish = (writer: AttemptEventLog) => writer.append({ type: "attempt.finished", level: "info", message: "done" });
const seqs = (events: InstallEvent[]) => events.map((e) => e.seq);
const exists = (path: string) => access(path).then(() => true, () => false);

async function collect(batches: AsyncIterable<InstallEvent[]>): Promise<InstallEvent[][]> {
  const all: InstallEvent[][] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

test("page: events after a seq, at most `limit`, saying whether more follow and whether the attempt finished", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 5);
  const cases: [number, number, number[], boolean, boolean][] = [
    // after, limit → seqs, more, finished
    [0, 10, [1, 2, 3, 4, 5], false, false],
    [2, 10, [3, 4, 5], false, false],
    [0, 3, [1, 2, 3], true, false],
    [5, 10, [], false, false],
  ];
  for (const [after, limit, expected, more, finished] of cases) {
    const page = await events.page(1, after, limit);
    assert.deepEqual({ seqs: seqs(page.events), more: page.more, finished: page.finished }, { seqs: expected, more, finished }, `after ${after}, limit ${limit}`);
  }
  finish(writer);
  assert.deepEqual(await events.page(1, 5, 10).then((p) => ({ seqs: seqs(p.events), finished: p.finished })), { seqs: [6], finished: true });
  assert.equal((await events.page(1, 0, 3)).finished, false, "not finished while more follow");
  await events.close(1, writer);
});

test("an ended attempt's writer closes; readers then read its file, which ends with attempt.finished", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 2);
  finish(writer);
  await events.close(1, writer);
  const page = await events.page(1, 0, 10);
  assert.deepEqual({ seqs: seqs(page.events), finished: page.finished, more: page.more }, { seqs: [1, 2, 3], finished: true, more: false });
  assert.deepEqual(seqs((await collect(events.follow(1, 1, new AbortController().signal))).flat()), [2, 3], "follow replays the file and ends");
  const reopened = await events.writer(1);
  assert.notEqual(reopened, writer, "asked again, a writer opens anew");
  assert.equal(reopened.lastSeq, 3);
  await events.close(1, reopened);
});

test("an attempt that did not start leaves no log", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 1);
  await writer.sync();
  await events.discard(1, writer);
  assert.equal(await exists(writer.path), false);
  assert.deepEqual((await events.page(1, 0, 10)).events, []);
});

test("follow: the replay, then live events as they are written, each once, until attempt.finished", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 3);
  await writer.sync();
  // Appended but not yet written when the follower starts: both the replay and the live feed see them.
  log(writer, 2);
  const follower = events.follow(1, 1, new AbortController().signal);
  const replay = await follower.next();
  // The replay is taken, and the follower, resumed at once by next(), waits for live events when they are logged.
  const rest = follower.next();
  log(writer, 2);
  finish(writer);
  const live = await rest;
  const batches = [replay.value as InstallEvent[], ...(live.done ? [] : [live.value as InstallEvent[]]), ...(await collect(follower))];
  assert.deepEqual(seqs(batches.flat()), [2, 3, 4, 5, 6, 7, 8]);
  assert.ok(batches.every((b) => b.length > 0), "no empty batch");
  await events.close(1, writer);
});

test("follow replays a long log a page of 1000 at a time", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 2499);
  finish(writer);
  await writer.sync();
  const batches = await collect(events.follow(1, 0, new AbortController().signal));
  assert.deepEqual(batches.map((b) => b.length), [1000, 1000, 500]);
  assert.deepEqual(seqs(batches.flat()), Array.from({ length: 2500 }, (_, i) => i + 1));
  await events.close(1, writer);
});

test("follow ends when its signal aborts, while it waits for live events", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 2);
  const gone = new AbortController();
  const follower = events.follow(1, 0, gone.signal);
  const replay = await follower.next();
  // Resumed at once by next(), the follower waits for live events when the abort comes.
  const rest = follower.next();
  gone.abort();
  assert.deepEqual(seqs(replay.value as InstallEvent[]), [1, 2]);
  assert.deepEqual(await rest, { done: true, value: undefined });
  await events.close(1, writer);
});

// One still in the replay of the file when the stop comes ends there: the rest would leave a gap (it resumes after its
// last event once the installer answers again, the stop's event included).
test("a reader behind when the stop comes (its last batch not yet taken) still gets what was written before the stop (the stop's own event), then the end", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 2);
  const stop = new AbortController();
  const followed = events.follow(1, 0, stop.signal)[Symbol.asyncIterator]();
  assert.deepEqual(seqs((await followed.next()).value as InstallEvent[]), [1, 2]);
  // Written (and on disk, as a stop has them) while the reader has not asked for more; then the stop ends the follow.
  log(writer, 2);
  await writer.sync();
  stop.abort();
  const rest: InstallEvent[][] = [];
  for (let next = await followed.next(); !next.done; next = await followed.next()) rest.push(next.value);
  assert.deepEqual(seqs(rest.flat()), [3, 4]);
  await events.close(1, writer);
});

// A client that stops reading its event stream (the socket's backpressure holds the follow at its yield) while firstboot
// floods: the follow kept every event written meanwhile in memory, for each such client, to hand them over as one batch.
test("a reader that stops taking batches while firstboot floods holds at most a page in memory: it reads the rest from the file a page at a time, each event once and in order", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 1);
  const followed = events.follow(1, 0, new AbortController().signal)[Symbol.asyncIterator]();
  assert.deepEqual(seqs((await followed.next()).value as InstallEvent[]), [1]);
  log(writer, 5000);
  finish(writer);
  await writer.sync();
  const rest: InstallEvent[][] = [];
  for (let next = await followed.next(); !next.done; next = await followed.next()) rest.push(next.value);
  assert.ok(rest.every((batch) => batch.length <= 1000), `batches of ${rest.map((b) => b.length).join(", ")}`);
  assert.deepEqual(seqs(rest.flat()), Array.from({ length: 5001 }, (_, i) => i + 2));
  await events.close(1, writer);
});

test("a reader behind by more than a page when the stop comes still gets everything written before the stop, from the file, then the end", async () => {
  const events = await fresh();
  const writer = await events.writer(1, true);
  log(writer, 1);
  const stop = new AbortController();
  const followed = events.follow(1, 0, stop.signal)[Symbol.asyncIterator]();
  assert.deepEqual(seqs((await followed.next()).value as InstallEvent[]), [1]);
  log(writer, 2500);
  await writer.sync();
  stop.abort();
  const rest: InstallEvent[][] = [];
  for (let next = await followed.next(); !next.done; next = await followed.next()) rest.push(next.value);
  assert.ok(rest.every((batch) => batch.length <= 1000), `batches of ${rest.map((b) => b.length).join(", ")}`);
  assert.deepEqual(seqs(rest.flat()), Array.from({ length: 2500 }, (_, i) => i + 2));
  await events.close(1, writer);
});
