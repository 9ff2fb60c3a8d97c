import { constants } from "node:fs";
import { open, rename, type FileHandle } from "node:fs/promises";
import { createInterface } from "node:readline";
import { InstallerError } from "../common/errors.ts";
import { printableJson } from "../common/printable.ts";
import { keptAsidePathOf } from "../state/layout.ts";
import type { Step } from "../state/records.ts";

export const EVENT_TYPES = [
  "attempt.started",
  "step.started",
  "step.log",
  "step.progress",
  "step.finished",
  "readiness.poll",
  "attempt.finished",
] as const;
type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_LEVELS = ["info", "warn", "error"] as const;
type EventLevel = (typeof EVENT_LEVELS)[number];

export interface InstallEvent {
  seq: number;
  attempt: number;
  time: string;
  type: EventType;
  step?: Step;
  level: EventLevel;
  message: string;
  data?: Record<string, unknown>;
}

/** `time` only for a moment the record also holds (an attempt's start, its end): the event then says the same instant. */
export type NewEvent = Omit<InstallEvent, "seq" | "attempt" | "time"> & { time?: string };
type Listener = (events: InstallEvent[]) => void;

const MAX_BATCH = 512;
export const BACKLOG_LIMIT = 4096;

/**
 * One attempt's append-only JSON Lines file. Appends are batched into one write per
 * turn of the event loop (a firstboot flooding output costs one syscall per batch),
 * and subscribers hear of events only once they are written: what a client was
 * shown survives kill -9. `sync()` fsyncs, at step boundaries.
 *
 * A write the disk refuses (full, read-only) keeps the events queued and cuts the
 * file back to its last whole line; every later append or flush tries again, and
 * `onFailure` listeners hear of it. Nothing rejects unobserved.
 */
export class AttemptEventLog {
  #seq: number;
  #size: number;
  #pending: InstallEvent[] = [];
  #flushing: Promise<void> | undefined;
  #failure: Error | undefined;
  #listeners = new Set<Listener>();
  #failureListeners = new Set<(err: Error) => void>();
  #finished = false;

  private constructor(
    readonly attempt: number,
    readonly path: string,
    private readonly file: FileHandle,
    lastSeq: number,
    size: number,
    private readonly now: () => Date,
    private readonly failed: (cause: unknown) => Error,
  ) {
    this.#seq = lastSeq;
    this.#size = size;
  }

  /**
   * `fresh`: a new attempt's log, started empty. A torn last line
   * (kill -9 mid-write) is cut off, so the next event starts a line of its own.
   */
  static async open(attempt: number, path: string, now: () => Date, failed: (cause: unknown) => Error, fresh = false): Promise<AttemptEventLog> {
    // Never overwritten: a log under a new attempt's name is an attempt the store no longer knows (a store kept
    // aside at start, or a kill between the log's first line and the store's write): kept aside beside it.
    if (fresh) await rename(path, keptAsidePathOf(path, now())).catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)));
    // Not through a link in its place (to a file outside the state dir): opened before it is read, and refused (ELOOP).
    const file = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      const existing = fresh ? [] : await readEvents(path, 0);
      const size = await wholeLinesSize(file);
      const log = new AttemptEventLog(attempt, path, file, existing.at(-1)?.seq ?? 0, size, now, failed);
      log.#finished = existing.some((e) => e.type === "attempt.finished");
      return log;
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  get lastSeq(): number {
    return this.#seq;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /**
   * `step` beside the event, not spread into it: a firstboot's every line is one append. Built field by field, in
   * SPEC's order, without copying the caller's object: copies were a quarter of what a flooding firstboot costs.
   */
  append(event: NewEvent, step = event.step): InstallEvent {
    const seq = ++this.#seq;
    const time = event.time ?? this.now().toISOString();
    const full: InstallEvent =
      step === undefined
        ? { seq, attempt: this.attempt, time, type: event.type, level: event.level, message: event.message }
        : { seq, attempt: this.attempt, time, type: event.type, step, level: event.level, message: event.message };
    if (event.data !== undefined) full.data = event.data;
    this.#pending.push(full);
    if (event.type === "attempt.finished") this.#finished = true;
    this.#schedule();
    return full;
  }

  #schedule(): void {
    this.#flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
  }

  /** Bounded batches, each an await: a flood never holds the event loop for long. */
  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.slice(0, MAX_BATCH);
        const text = batch.map((e) => `${printableJson(e)}\n`).join("");
        try {
          await this.file.appendFile(text);
        } catch (err) {
          await this.file.truncate(this.#size).catch(() => undefined);
          throw err;
        }
        this.#size += Buffer.byteLength(text);
        this.#pending.splice(0, batch.length);
        this.#failure = undefined;
        for (const listener of this.#listeners) listener(batch);
      }
    } catch (err) {
      this.#failure = this.failed(err);
      for (const listener of this.#failureListeners) listener(this.#failure);
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Events appended but not yet written: producers wait when it grows (backpressure). */
  get backlog(): number {
    return this.#pending.length;
  }

  /** Resolves once every appended event is written; rejects when the disk refused them (they stay queued). */
  async flush(): Promise<void> {
    if (this.#pending.length > 0) this.#schedule();
    while (this.#flushing) await this.#flushing;
    if (this.#pending.length > 0 && this.#failure) throw this.#failure;
  }

  async sync(): Promise<void> {
    await this.flush();
    await this.file.sync().catch((err: unknown) => Promise.reject(this.failed(err)));
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onFailure(listener: (err: Error) => void): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  /** Closes the file; queued events that could not be written are dropped. */
  async close(): Promise<void> {
    await this.sync().catch(() => undefined);
    await this.file.close();
  }
}

/** The file's length up to its last newline; a torn tail is cut off. */
async function wholeLinesSize(file: FileHandle): Promise<number> {
  const { size } = await file.stat();
  if (size === 0) return 0;
  const tail = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - tail.length);
    const { bytesRead } = await file.read(tail, 0, end - start, start);
    const newline = tail.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline >= 0) {
      const whole = start + newline + 1;
      if (whole < size) await file.truncate(whole);
      return whole;
    }
    end = start;
  }
  await file.truncate(0);
  return 0;
}

/** An event of the log's line, or undefined for a line that is none (torn by kill -9, or not the writer's). */
export function eventOf(line: string): InstallEvent | undefined {
  if (!line.startsWith("{") || !line.endsWith("}")) return undefined;
  try {
    const event = JSON.parse(line) as InstallEvent;
    return Number.isSafeInteger(event.seq) ? event : undefined;
  } catch {
    return undefined;
  }
}

/** What one look into the file reads: many whole lines (an event's line is a few KiB at most: its message is capped). */
const PROBE_BYTES = 64 * 1024;

/** The first event of a line that begins after `mid` and before `hi`, with where its line begins; undefined when one read finds none. */
async function eventAfter(file: FileHandle, buffer: Buffer, mid: number, hi: number): Promise<{ start: number; seq: number } | undefined> {
  // From the byte before mid: a newline there means a line begins at mid.
  const from = mid - 1;
  const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, hi - from), from);
  const bytes = buffer.subarray(0, bytesRead);
  let newline = bytes.indexOf(0x0a);
  while (newline >= 0) {
    const next = bytes.indexOf(0x0a, newline + 1);
    if (next < 0) return undefined;
    const event = eventOf(bytes.toString("utf8", newline + 1, next));
    if (event) return { start: from + newline + 1, seq: event.seq };
    newline = next;
  }
  return undefined;
}

/**
 * Where a read of the events after `after` can begin: the start of a line whose event's seq is at most `after` (or
 * the file's start), found by halving the file. The writer appends events in the order of their seqs, so every
 * event before that line is one the read would skip: reading from there gives what reading the whole file gives,
 * while a page deep in a long log (a flooding firstboot's) reads the lines near it, not all those before it.
 */
async function startOf(file: FileHandle, after: number): Promise<number> {
  if (!(after > 0)) return 0;
  const { size } = await file.stat();
  const buffer = Buffer.allocUnsafe(PROBE_BYTES);
  let lo = 0;
  let hi = size;
  while (hi - lo > PROBE_BYTES) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const found = await eventAfter(file, buffer, mid, hi);
    if (found && found.seq <= after) lo = found.start;
    else hi = mid;
  }
  return lo;
}

/**
 * Events with seq > after, oldest first, at most `limit` (of the lines `wanted` keeps). A line that holds no event (a torn last line after kill -9)
 * is skipped. The read begins near the first of them (`startOf`), not at the file's start.
 */
export async function readEvents(path: string, after: number, limit = Number.POSITIVE_INFINITY, wanted?: (line: string) => boolean): Promise<InstallEvent[]> {
  return readEventsOf(path, after, limit, wanted).catch((err: NodeJS.ErrnoException) => Promise.reject(notAnEventLog(path, err) ?? err));
}

/** What stands where an event log must be, in words with what to do; undefined for another error (the log has it). */
function notAnEventLog(path: string, err: NodeJS.ErrnoException): InstallerError | undefined {
  const what = err.code === "ELOOP" ? "is a symbolic link: the installer reads no file of its state dir through a link" : err.code === "EISDIR" ? "is a folder, where the attempt's log file must be" : undefined;
  if (!what) return undefined;
  return new InstallerError({
    code: "INTERNAL",
    detail: `the event log ${path} ${what}. Put the attempt's log file back in its place (\`installer.js support-bundle\` first, to keep what is there)`,
  });
}

async function readEventsOf(path: string, after: number, limit: number, wanted?: (line: string) => boolean): Promise<InstallEvent[]> {
  const events: InstallEvent[] = [];
  // Not through a link in its place: the events of whatever file it leads to are not this attempt's (ELOOP).
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)));
  if (!file) return events;
  let start: number;
  try {
    start = await startOf(file, after);
  } catch (err) {
    await file.close();
    throw err;
  }
  // The stream closes the file when it ends or is destroyed.
  const stream = file.createReadStream({ encoding: "utf8", start });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const done = new Promise<void>((resolve, reject) => {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      // readline does not end its lines on its input's error: the loop below would wait for good (a folder in the file's place).
      lines.close();
      reject(err);
    });
    stream.on("close", resolve);
  });
  // Awaited below; when the loop throws first, not an unhandled rejection.
  done.catch(() => undefined);
  try {
    for await (const line of lines) {
      if (wanted && !wanted(line)) continue;
      const event = eventOf(line);
      if (!event || event.seq <= after) continue;
      events.push(event);
      if (events.length >= limit) break;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  await done;
  return events;
}
