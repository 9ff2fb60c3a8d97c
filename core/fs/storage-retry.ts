import { setTimeout as sleep } from "node:timers/promises";
import { isStorageError, storageFault } from "./storage-error.ts";

/** Waits `ms` before a retry: true, or false once `signal` aborts (the service stops). */
export type RetryWait = (ms: number, signal: AbortSignal) => Promise<boolean>;

const sleepUnlessStopped: RetryWait = (ms, signal) => sleep(ms, true, { ref: false, signal }).catch(() => false);

/**
 * Runs `action` again while the state dir refuses its writes (a full disk, a read-only remount): after 1 s, then twice
 * as long each time up to a minute, until it goes through or `signal` aborts. A state dir that is gone is made again
 * only by a restart, so that ends the retries, as any other failure does: that one is returned, for the caller to log.
 */
export async function retryWhileStorageRefuses(action: () => Promise<void>, signal: AbortSignal, wait: RetryWait = sleepUnlessStopped): Promise<unknown> {
  for (let delay = 1_000; !signal.aborted; delay = Math.min(delay * 2, 60_000)) {
    if (!(await wait(delay, signal))) break;
    try {
      await action();
      break;
    } catch (err) {
      if (!isStorageError(err)) return err;
      if (storageFault(err).gone) break;
    }
  }
  return undefined;
}
