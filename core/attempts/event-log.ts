import { readdir, rm } from "node:fs/promises";
import { ensurePrivateDir } from "../fs/private-dir.ts";
import { storageError } from "../fs/storage-error.ts";
import { stateLayout } from "../state/layout.ts";
import { AttemptEventLog, eventOf, readEvents, type InstallEvent } from "./events.ts";

const REPLAY_PAGE = 1000;

export interface EventsPage {
  events: InstallEvent[];
  /** The attempt's attempt.finished event is among these or earlier ones. */
  finished: boolean;
  /** More events follow: ask again with after = the last seq. */
  more: boolean;
}

/**
 * Every attempt's events, one JSON Lines file each under <state dir>/events. A running attempt
 * has an open writer; once it ended and its events are on disk the writer is closed, and
 * readers read the file: an attempt whose record is no longer running has attempt.finished there.
 */
export interface EventLog {
  /** The attempt's writer, opened once; `fresh` for a new attempt (a log already under its name is kept aside, not overwritten). */
  writer(attempt: number, fresh?: boolean): Promise<AttemptEventLog>;
  /** An ended attempt's events are on disk: its writer closes. */
  close(attempt: number, writer: AttemptEventLog): Promise<void>;
  /** An attempt that did not start leaves no log. */
  discard(attempt: number, writer: AttemptEventLog | undefined): Promise<void>;
  /** Every open writer's events reach the disk, as far as it takes them (at shutdown). */
  sync(): Promise<void>;
  /**
   * The attempt's step.finished and attempt.finished events on disk: at start, what a killed installer wrote before its
   * record; and the messages of its last `tail` step.log events (firstboot's output), which its record holds only as of
   * its last write.
   */
  outcomes(attempt: number, tail: number): Promise<{ events: InstallEvent[]; lastLogLines: string[] }>;
  /** Events with seq > after, oldest first, at most `limit`. */
  page(attempt: number, after: number, limit: number): Promise<EventsPage>;
  /**
   * Events with seq > after in batches: the file's, then live ones as they are written, with no
   * gap and no duplicate (the subscription starts before the replay; live events at or below the
   * last replayed seq are dropped). Ends after attempt.finished or when `signal` aborts.
   */
  follow(attempt: number, after: number, signal: AbortSignal): AsyncGenerator<InstallEvent[]>;
}

/**
 * The first attempt whose events show that firstboot ran though the store has no record of it (numbered past its
 * `recorded` attempts): a store lost, or kept aside as damaged, after an install. `ended` is false for a firstboot
 * whose events show it started and not how it ended (its installer killed, or the store lost mid-run): it may have
 * run. One that failed is not returned: a recorded attempt would let an install retry it too.
 */
export async function unrecordedFirstboot(stateDir: string, recorded: number): Promise<{ attempt: number; time: string; ended: boolean } | undefined> {
  const { events: dir } = stateLayout(stateDir);
  const numbers = (await readdir(dir).catch(() => [] as string[]))
    .map((name) => Number(/^attempt-(\d+)\.jsonl$/.exec(name)?.[1] ?? Number.NaN))
    .filter((n) => n > recorded)
    .sort((a, b) => a - b);
  const ofFirstboot = (line: string) => line.includes('"step":"firstboot"') && (line.includes('"type":"step.started"') || line.includes('"type":"step.finished"'));
  for (const attempt of numbers) {
    // A file that cannot be read (a folder in its place, no permission) shows nothing: the start goes on.
    const events = await readEvents(stateLayout(stateDir).eventsOf(attempt), 0, Number.POSITIVE_INFINITY, ofFirstboot).catch(() => []);
    const started = events.find((e) => e.type === "step.started" && e.step === "firstboot");
    const finished = events.find((e) => e.type === "step.finished" && e.step === "firstboot");
    const outcome = (finished?.data as { outcome?: unknown } | undefined)?.outcome;
    if (finished && outcome === "succeeded") return { attempt, time: finished.time, ended: true };
    if (started && !finished) return { attempt, time: started.time, ended: false };
  }
  return undefined;
}

export function createEventLog(stateDir: string, now: () => Date): EventLog {
  const writers = new Map<number, Promise<AttemptEventLog>>();
  const { events: dir, eventsOf: path } = stateLayout(stateDir);
  const failed = (err: unknown) => storageError(stateDir, err);

  return {
    writer(attempt, fresh = false) {
      let writer = writers.get(attempt);
      if (!writer) {
        writer = ensurePrivateDir(dir)
          .then(() => AttemptEventLog.open(attempt, path(attempt), now, failed, fresh))
          .catch((err: unknown) => {
            writers.delete(attempt);
            throw failed(err);
          });
        writers.set(attempt, writer);
      }
      return writer;
    },
    async close(attempt, writer) {
      writers.delete(attempt);
      await writer.close();
    },
    async discard(attempt, writer) {
      writers.delete(attempt);
      if (!writer) return;
      await writer.close().catch(() => undefined);
      await rm(writer.path, { force: true }).catch(() => undefined);
    },
    async sync() {
      await Promise.all([...writers.values()].map(async (writer) => (await writer).sync().catch(() => undefined)));
    },
    async outcomes(attempt, tail) {
      // The log lines as a ring of the last ones: a firstboot may have printed half a million.
      const logLines: string[] = [];
      const events = await readEvents(path(attempt), 0, Number.POSITIVE_INFINITY, (line) => {
        if (!line.includes('"type":"step.log"')) return line.includes('"type":"step.finished"') || line.includes('"type":"attempt.finished"');
        logLines.push(line);
        if (logLines.length > tail) logLines.shift();
        return false;
      });
      const lastLogLines = logLines.flatMap((line) => {
        const event = eventOf(line);
        return event?.type === "step.log" ? [event.message] : [];
      });
      return { events, lastLogLines };
    },
    async page(attempt, after, limit) {
      const writer = await writers.get(attempt);
      // Only what is on disk is read (an event not written may yet be lost): a state dir that refuses writes stops
      // the writer, not its readers.
      await writer?.flush().catch(() => undefined);
      const events = await readEvents(path(attempt), after, limit + 1);
      const more = events.length > limit;
      return { events: more ? events.slice(0, limit) : events, finished: !more && (writer ? writer.finished && writer.backlog === 0 : true), more };
    },
    async *follow(attempt, after, signal) {
      const writer = await writers.get(attempt);
      let last = after;
      let live: InstallEvent[] = [];
      // A reader that stopped taking batches (a client that does not read its stream) keeps at most a page of them: past
      // it the live ones are dropped and read again from the file, a page at a time, once it takes them.
      let behind = false;
      let wake: (() => void) | undefined;
      const unsubscribe = writer?.subscribe((batch) => {
        if (behind) return wake?.();
        live.push(...batch);
        if (live.length > REPLAY_PAGE) {
          behind = true;
          live = [];
        }
        wake?.();
      });
      const aborted = () => wake?.();
      signal.addEventListener("abort", aborted);
      /** The file's next page after `last`, `last` moved to its end. */
      const nextPage = async () => {
        const page = await readEvents(path(attempt), last, REPLAY_PAGE);
        if (page.length > 0) last = page.at(-1)!.seq;
        return page;
      };
      try {
        await writer?.flush().catch(() => undefined);
        // The file read to its end: every event since is in `live` (subscribed before the read).
        let caughtUp = false;
        for (;;) {
          const page = await nextPage();
          if (page.length > 0) yield page;
          caughtUp = page.length < REPLAY_PAGE;
          if (caughtUp || signal.aborted) break;
        }
        while (writer && !signal.aborted && !(writer.finished && last >= writer.lastSeq)) {
          if (behind) {
            // Live ones from here on are kept again; the file, flushed after, has every one before: none is missed.
            behind = false;
            await writer.flush().catch(() => undefined);
            const page = await nextPage();
            if (page.length === REPLAY_PAGE) {
              behind = true;
              live = [];
            }
            if (page.length > 0) yield page;
            continue;
          }
          if (live.length === 0) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          const batch = live.filter((e) => e.seq > last);
          live = [];
          if (batch.length > 0) {
            last = batch.at(-1)!.seq;
            yield batch;
          }
        }
        // Ended (a stop) while its reader was behind: what was written before the end (the stop's own event) still goes
        // out. Not after a replay cut short, where it would leave a gap.
        if (caughtUp && signal.aborted && behind) {
          // Behind by more than a page: what was written before the end is read from the file, a page at a time.
          await writer?.flush().catch(() => undefined);
          for (;;) {
            const page = await nextPage();
            if (page.length > 0) yield page;
            if (page.length < REPLAY_PAGE) break;
          }
        }
        const rest = caughtUp && signal.aborted ? live.filter((e) => e.seq > last) : [];
        if (rest.length > 0 && rest[0]!.seq === last + 1) yield rest;
      } finally {
        unsubscribe?.();
        signal.removeEventListener("abort", aborted);
      }
    },
  };
}
