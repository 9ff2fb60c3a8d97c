import { once } from "node:events";
import type { Server } from "node:https";
import { Server as NetServer, type Socket } from "node:net";

/** Long enough for an answer a stop ended to reach its client; short enough that a client that stopped reading costs little. */
const FINISH_MS = 5_000;

/** The server's connections (a listener a connection, none a request: one on every answer cost `/status` a third of its throughput). */
export function connectionsOf(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return sockets;
}

/** Whether a connection is answering: Node's own mark, kept from an answer's start until its last byte went out. */
const answering = (socket: Socket) => Boolean((socket as Socket & { _httpMessage?: unknown })._httpMessage);

/**
 * A stop's first move: the server takes no new connection, closes the idle ones, answers what still comes on a busy one
 * with `Connection: close`, and closes each busy one once its answer went out whole (the keep-alive timeout Node sets
 * after an answer's last byte, made 1 ms): an event stream the stop ended, its last line saying so, reaches its client
 * instead of a reset. Not http's close(), which from Node 19 on destroys a connection whose answer is ended but still
 * queued for a client slow to read. Returns the wait for the answers under way: it resolves once no connection is left,
 * or at `ms`, when those left are closed; it says how many were left then.
 */
export function stopTakingRequests(server: Server, sockets: Set<Socket>): (ms?: number) => Promise<number> {
  let closed = false;
  NetServer.prototype.close.call(server, () => (closed = true));
  server.keepAliveTimeout = 1;
  server.prependListener("request", (_req, res) => (res.shouldKeepAlive = false));
  for (const socket of sockets) if (!answering(socket)) socket.destroy();
  return async (ms = FINISH_MS) => {
    const deadline = AbortSignal.timeout(ms);
    const late = once(deadline, "abort").catch(() => undefined);
    if (!closed) await Promise.race([once(server, "close").catch(() => undefined), late]);
    // Destroyed ones say so a tick before their close.
    const left = [...sockets].filter((socket) => !socket.destroyed);
    // Past the wait, none is left to take a request: the lock goes next.
    for (const socket of left) socket.destroy();
    return left.length;
  };
}
