import type { EventEmitter } from "node:events";

/**
 * Runs `work` once, after the first `event` (a server's "request"), when no other has come for `quietMs`, or at the
 * latest `latestMs` after the first: work that may wait (the code cache, ≈ 10 ms of CPU) stays out of a first burst
 * of requests (a fleet's checks of fifty fresh nodes, a console's first page), and a steady poll does not put it off
 * for ever. Its timers keep no process alive.
 */
export function whenQuiet(emitter: EventEmitter, event: string, options: { quietMs: number; latestMs: number }, work: () => void): void {
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
    latest ??= setTimeout(run, options.latestMs).unref();
  }
  emitter.on(event, seen);
}
