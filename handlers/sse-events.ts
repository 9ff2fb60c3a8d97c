import type { SSEStreamingApi } from "hono/streaming";
import { readEvents, type AttemptEventLog, type InstallEvent } from "../core/attempts/events.ts";

export const HEARTBEAT_MS = 15_000;
const REPLAY_PAGE = 1000;

/**
 * Replay from the log file, then live events, with no gap and no duplicate: the
 * subscription starts before the replay, and live events at or below the last
 * replayed seq are dropped. Ends after attempt.finished or when the client goes.
 */
export async function followEvents(stream: SSEStreamingApi, log: AttemptEventLog, after: number): Promise<void> {
  let last = after;
  let closed = false;
  let live: InstallEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = log.subscribe((batch) => {
    live.push(...batch);
    wake?.();
  });
  stream.onAbort(() => {
    closed = true;
    wake?.();
  });
  // One write a batch: a burst of firstboot output to many subscribers costs one TLS write each, not one per line.
  const send = async (events: InstallEvent[]) => {
    let text = "";
    for (const event of events) {
      if (event.seq <= last) continue;
      text += `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
      last = event.seq;
    }
    if (text) await stream.write(text);
  };
  try {
    await log.flush();
    for (;;) {
      const page = await readEvents(log.path, last, REPLAY_PAGE);
      await send(page);
      if (page.length < REPLAY_PAGE || closed) break;
    }
    while (!closed && !(log.finished && last >= log.lastSeq)) {
      if (live.length === 0) {
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), HEARTBEAT_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (timedOut && !closed) await stream.write(": heartbeat\n\n");
        continue;
      }
      const batch = live;
      live = [];
      await send(batch);
    }
  } finally {
    unsubscribe();
  }
}
