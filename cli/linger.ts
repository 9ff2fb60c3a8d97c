import type { Server } from "node:https";
import type { TLSSocket } from "node:tls";

/** Long enough for a client on a slow link to read the reply; short enough that a stalled one costs little. */
const LINGER_MS = 2_000;

/**
 * Node closes a `Connection: close` socket as soon as the reply is written, even when the client is
 * still sending a body the server refused (a 413 over the 1 MiB limit). The client's kernel then
 * meets a reset and the reply is lost: the operator sees EPIPE, not BODY_TOO_LARGE. Like nginx's
 * lingering close and Go's closeWrite-then-wait, send our end first and keep reading (and
 * discarding) until the client closes too, for at most LINGER_MS.
 */
export function lingerOnClose(server: Server): void {
  server.on("secureConnection", (socket: TLSSocket) => {
    socket.destroySoon = function lingeringClose(this: TLSSocket) {
      if (this.destroyed) return;
      if (this.writable) this.end();
      const timer = setTimeout(() => this.destroy(), LINGER_MS);
      timer.unref();
      this.once("close", () => clearTimeout(timer));
      this.resume();
    };
  });
}
