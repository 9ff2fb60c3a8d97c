import { createReadStream } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";
import { createInterface } from "node:readline";
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
   * `fresh`: a new attempt's log, so whatever a crash left under its name goes. A torn last line
   * (kill -9 mid-write) is cut off, so the next event starts a line of its own.
   */
  static async open(attempt: number, path: string, now: () => Date, failed: (cause: unknown) => Error, fresh = false): Promise<AttemptEventLog> {
    if (fresh) await rm(path, { force: true });
    const existing = fresh ? [] : await readEvents(path, 0);
    const file = await open(path, "a+", 0o600);
    try {
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

  append(event: NewEvent): InstallEvent {
    const full: InstallEvent = { seq: ++this.#seq, attempt: this.attempt, ...event, time: event.time ?? this.now().toISOString() };
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
        const text = batch.map((e) => `${JSON.stringify(e)}\n`).join("");
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

/** Events with seq > after, oldest first, at most `limit`. A torn last line (kill -9 mid-write) is skipped. */
export async function readEvents(path: string, after: number, limit = Number.POSITIVE_INFINITY): Promise<InstallEvent[]> {
  const events: InstallEvent[] = [];
  const stream = createReadStream(path, { encoding: "utf8" });
  const done = new Promise<void>((resolve, reject) => {
    stream.on("error", (err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? resolve() : reject(err)));
    stream.on("close", resolve);
  });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (!line.startsWith("{") || !line.endsWith("}")) continue;
      let event: InstallEvent;
      try {
        event = JSON.parse(line) as InstallEvent;
      } catch {
        continue;
      }
      if (event.seq <= after) continue;
      events.push(event);
      if (events.length >= limit) break;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  } finally {
    lines.close();
    stream.destroy();
  }
  await done;
  return events;
}
