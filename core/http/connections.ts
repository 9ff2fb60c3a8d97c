/**
 * Connections kept open between two requests to one origin under one trust: a connection is checked (pin, CA) on
 * its handshake, so whatever it carries later goes to the server that passed that check. Idle ones are closed
 * after a short time and there are never more than `max` of them, whatever the number of origins.
 */
import type { Socket } from "node:net";

/** A connection whose server passed the request's trust; `certificate` the SHA-256 of what it presented (https). */
export interface Checked {
  socket: Socket;
  certificate?: string;
}

export interface IdleConnections {
  /** A connection to `key` kept here, taken out for one request; undefined when none is. */
  take(key: string): Checked | undefined;
  /** Keeps `checked` for the next request to `key`, for the idle time or what the server said it keeps one open (less a margin). */
  keep(key: string, checked: Checked, serverKeepsMs?: number): void;
  /** How many connections are kept now. */
  readonly size: number;
}

interface Entry {
  key: string;
  checked: Checked;
  /** performance.now() past which it is not taken, though its timer has not fired (a busy event loop). */
  until: number;
  timer: NodeJS.Timeout;
  gone: () => void;
}

/** Closed this long before the server would close it: its timer and ours start apart, and a request takes time to arrive. */
const SERVER_MARGIN_MS = 1_000;

/** A connection that can carry another request: open both ways, nothing heard from the server since its last answer. */
const usable = (socket: Socket) => !socket.destroyed && socket.writable && socket.readable && !socket.readableEnded;

export function createIdleConnections(options: { idleMs: number; max: number }): IdleConnections {
  const byKey = new Map<string, Entry[]>();
  // Oldest first: the one closed when a new one would pass `max`.
  const all = new Set<Entry>();

  const remove = (entry: Entry) => {
    all.delete(entry);
    const list = byKey.get(entry.key) ?? [];
    list.splice(list.indexOf(entry), 1);
    if (list.length === 0) byKey.delete(entry.key);
    clearTimeout(entry.timer);
    entry.checked.socket.off("close", entry.gone).off("end", entry.gone);
  };
  const drop = (entry: Entry) => {
    remove(entry);
    entry.checked.socket.destroy();
  };

  return {
    take(key) {
      for (let entry = byKey.get(key)?.at(-1); entry; entry = byKey.get(key)?.at(-1)) {
        remove(entry);
        const { socket } = entry.checked;
        if (!usable(socket) || performance.now() >= entry.until) {
          socket.destroy();
          continue;
        }
        socket.ref();
        return entry.checked;
      }
      return undefined;
    },
    keep(key, checked, serverKeepsMs) {
      const idleMs = Math.min(options.idleMs, serverKeepsMs === undefined ? Infinity : serverKeepsMs - SERVER_MARGIN_MS);
      if (!usable(checked.socket) || idleMs <= 0 || options.max <= 0) return void checked.socket.destroy();
      const entry: Entry = { key, checked, until: performance.now() + idleMs, timer: setTimeout(() => drop(entry), idleMs).unref(), gone: () => drop(entry) };
      // A server that closes it, or a close of ours: out of the pool at once.
      checked.socket.once("close", entry.gone).once("end", entry.gone);
      // An idle connection keeps no process alive; taken, it does again (the request's own deadline bounds it).
      checked.socket.unref();
      all.add(entry);
      byKey.set(key, [...(byKey.get(key) ?? []), entry]);
      for (const oldest of all) {
        if (all.size <= options.max) break;
        drop(oldest);
      }
    },
    get size() {
      return all.size;
    },
  };
}
