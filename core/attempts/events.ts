import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { Step } from "../model.ts";

export const EVENT_TYPES = [
  "attempt.started",
  "step.started",
  "step.log",
  "step.progress",
  "step.finished",
  "readiness.poll",
  "attempt.finished",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_LEVELS = ["info", "warn", "error"] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

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

export type NewEvent = Omit<InstallEvent, "seq" | "attempt" | "time">;
type Listener = (events: InstallEvent[]) => void;

const MAX_BATCH = 512;
export const BACKLOG_LIMIT = 4096;

/**
 * One attempt's append-only JSON Lines file. Appends are batched into one write per
 * turn of the event loop (a firstboot flooding output costs one syscall per batch),
 * and subscribers hear of events only once they are written: what a client was
 * shown survives kill -9. `sync()` fsyncs, at step boundaries.
 */
export class AttemptEventLog {
  #seq: number;
  #pending: InstallEvent[] = [];
  #flushing: Promise<void> | undefined;
  #listeners = new Set<Listener>();
  #finished = false;

  private constructor(
    readonly attempt: number,
    readonly path: string,
    private readonly file: FileHandle,
    lastSeq: number,
    private readonly now: () => Date,
  ) {
    this.#seq = lastSeq;
  }

  static async open(attempt: number, path: string, now: () => Date): Promise<AttemptEventLog> {
    const existing = await readEvents(path, 0);
    const file = await open(path, "a", 0o600);
    const log = new AttemptEventLog(attempt, path, file, existing.at(-1)?.seq ?? 0, now);
    log.#finished = existing.some((e) => e.type === "attempt.finished");
    return log;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  get finished(): boolean {
    return this.#finished;
  }

  append(event: NewEvent): InstallEvent {
    const full: InstallEvent = { seq: ++this.#seq, attempt: this.attempt, time: this.now().toISOString(), ...event };
    this.#pending.push(full);
    if (event.type === "attempt.finished") this.#finished = true;
    this.#flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
    return full;
  }

  /** Bounded batches, each an await: a flood never holds the event loop for long. */
  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH);
      await this.file.write(batch.map((e) => `${JSON.stringify(e)}\n`).join(""));
      for (const listener of this.#listeners) listener(batch);
    }
    this.#flushing = undefined;
  }

  /** Events appended but not yet written: producers wait when it grows (backpressure). */
  get backlog(): number {
    return this.#pending.length;
  }

  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async sync(): Promise<void> {
    await this.flush();
    await this.file.sync();
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.sync();
    await this.file.close();
  }
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
