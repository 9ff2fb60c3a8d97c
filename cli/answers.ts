import { once } from "node:events";
import type { Server } from "node:https";

/** Long enough for an answer a stop ended to reach its client; short enough that a client that stopped reading costs little. */
export const FINISH_MS = 5_000;
/** How often, while a stop waits, the connections whose answer went out are closed. */
const SWEEP_MS = 50;

/**
 * For a stop (after `server.close()`) to let the answers under way go out whole: an event stream the stop ended, its
 * last line saying so, reaches its client instead of a reset as the process exits. The returned wait closes each
 * connection once its answer went out (idle), and resolves once none is left, or at `ms`, when the connections left
 * are closed; it says how many were still answering then. Nothing is counted per request: a listener on every answer
 * cost `/status` a third of its throughput.
 */
export function answersUnderWay(server: Server): (ms?: number) => Promise<number> {
  let closed = false;
  server.once("close", () => (closed = true));
  return async (ms = FINISH_MS) => {
    const deadline = AbortSignal.timeout(ms);
    const late = once(deadline, "abort").catch(() => undefined);
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
    try {
      if (!closed) await Promise.race([once(server, "close").catch(() => undefined), late]);
    } finally {
      clearInterval(sweep);
    }
    const cut = closed ? 0 : await new Promise<number>((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));
    // Past the wait, none is left to take a request: the lock goes next.
    server.closeAllConnections();
    return cut;
  };
}
