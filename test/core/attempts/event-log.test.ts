import assert from "node:assert/strict";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AttemptEventLog, readEvents } from "../../../core/attempts/events.ts";

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

test("a fresh log drops what a crash left under the attempt's name", async () => {
  const path = await logFile(`${line(1)}${line(2)}`);
  const log = await AttemptEventLog.open(1, path, now, failed, true);
  log.append({ type: "attempt.started", level: "info", message: "started" });
  await log.close();
  assert.deepEqual((await readEvents(path, 0)).map((e) => [e.seq, e.message]), [[1, "started"]]);
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
