import { once } from "node:events";
import type { ServerResponse } from "node:http";
import type { Server } from "node:https";

/** Long enough for an answer a stop ended to reach its client; short enough that a client that stopped reading costs little. */
export const FINISH_MS = 5_000;

/**
 * Keeps count of the answers under way, for a stop (after `server.close()`) to let them go out whole: an event stream
 * the stop ended, its last line saying so, reaches its client instead of a reset as the process exits. The returned
 * wait resolves once each of those answers went out and every connection closed (its idle ones closed once they are),
 * or at `ms`, when every connection left is closed; it says how many answers were still going out then.
 */
export function answersUnderWay(server: Server): (ms?: number) => Promise<number> {
  const open = new Set<ServerResponse>();
  server.on("request", (_req, res: ServerResponse) => {
    open.add(res);
    res.once("close", () => open.delete(res));
  });
  let closed = false;
  server.once("close", () => (closed = true));
  return async (ms = FINISH_MS) => {
    const deadline = AbortSignal.timeout(ms);
    const late = once(deadline, "abort").catch(() => undefined);
    await Promise.race([Promise.all([...open].map((res) => once(res, "close").catch(() => undefined))), late]);
    server.closeIdleConnections();
    if (!closed && !deadline.aborted) await Promise.race([once(server, "close").catch(() => undefined), late]);
    const cut = open.size;
    // Past the wait, none is left to take a request: the lock goes next.
    server.closeAllConnections();
    return cut;
  };
}
