import type { EventEmitter } from "node:events";

export interface QuietOptions {
  /** How long without an `event` is quiet. */
  quietMs: number;
  /** At the latest this long after the first `event` (or the call, with `from: "now"`), however many keep coming; without it, a steady stream puts the work off for ever. */
  latestMs?: number;
  /** Counted from the first `event` (the default: nothing runs before one), or from now, as if one had just come. */
  from?: "first event" | "now";
}

/**
 * Runs `work` once, when no `event` (a server's "request") has come for `quietMs`: work that may wait stays out of a
 * burst of requests (a fleet's checks of fifty fresh nodes, a console's first page). The code cache (≈ 10 ms of CPU)
 * waits for the first burst to be over, or at the latest `latestMs` after its first request, so that a steady poll
 * does not put it off for ever; the warm-up of the request paths waits for a quiet moment from the banner on. A request
 * counts when it begins: one that lasts longer than `quietMs` does not hold the work back. Its timers keep no process
 * alive.
 */
export function whenQuiet(emitter: EventEmitter, event: string, options: QuietOptions, work: () => void): void {
  let quiet: NodeJS.Timeout | undefined;
  let latest: NodeJS.Timeout | undefined;
  const run = () => {
    emitter.off(event, seen);
    clearTimeout(quiet);
    clearTimeout(latest);
    work();
  };
  function seen() {
    clearTimeout(quiet);
    quiet = setTimeout(run, options.quietMs).unref();
    if (options.latestMs !== undefined) latest ??= setTimeout(run, options.latestMs).unref();
  }
  emitter.on(event, seen);
  if (options.from === "now") seen();
}
