import { readdirSync, readFileSync } from "node:fs";
import type { Server } from "node:net";
import type { Logger } from "../core/common/log.ts";

/**
 * Every open connection is an open file, and so are the store's writes, an attempt's events and firstboot's pipes: a
 * flood of connections (a scan, a client that never shakes hands) must not take the files the install needs. The
 * server takes at most what the open-files limit leaves once those have theirs; a connection that has not shaken
 * hands in `handshakeTimeoutMs` is closed (Node's default keeps it two minutes).
 */
export const CONNECTION_LIMITS = {
  /**
   * Files kept for an install beyond those open at start: firstboot's pipes, the event log, the store's writes and
   * their folder, readiness, the service log, the code cache.
   */
  installFiles: 24,
  /**
   * Files a connection may hold: its socket, the events file its stream replays (or its page reads), and one more at
   * its start. With two, a burst of streams under ulimit -n 64 still ran out now and then (not pinned down which).
   */
  filesPerConnection: 3,
  /** Fewer than this (a console, a fleet's driver, a few more) and the start says to raise the limit. */
  least: 32,
  /** At most, however high the limit: each connection holds memory too. */
  most: 10_000,
  handshakeTimeoutMs: 10_000,
} as const;

/** The soft "Max open files" of a /proc/PID/limits text; undefined when it has none. */
export function softOpenFilesLimit(limits: string): number | undefined {
  const soft = /^Max open files\s+(\d+|unlimited)\s/m.exec(limits)?.[1];
  return soft === undefined ? undefined : soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft);
}

/** This process's open-files limit (Linux); undefined elsewhere. */
export function openFilesLimit(): number | undefined {
  try {
    return softOpenFilesLimit(readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return undefined;
  }
}

/** How many files this process has open (Linux); 0 elsewhere. */
export function openFilesNow(): number {
  try {
    // Less the one reading the folder.
    return readdirSync("/proc/self/fd").length - 1;
  } catch {
    return 0;
  }
}

/**
 * The most connections served at once under an open-files limit (1,024 when it is not known: most systems' soft limit),
 * `openNow` files already open: the install's own stay free, and each connection may hold three, so that neither accept()
 * (libuv drops a connection it has no file for, unsaid) nor an attempt's writes nor a stream's replay runs out. One at least.
 */
export function connectionCap(openFiles: number | undefined, openNow: number): number {
  const { installFiles, filesPerConnection, most } = CONNECTION_LIMITS;
  const room = Math.floor(((openFiles ?? 1024) - openNow - installFiles) / filesPerConnection);
  return Math.max(1, Math.min(most, room));
}

/** The start's notice when the limit leaves fewer than `least` connections: which limit, and what to raise. */
export function lowLimitNotice(openFiles: number | undefined, cap: number): string | undefined {
  if (openFiles === undefined || cap >= CONNECTION_LIMITS.least) return undefined;
  return `the open-files limit (${openFiles}) leaves room for ${cap} connection${cap === 1 ? "" : "s"} at once (${CONNECTION_LIMITS.least} wanted): raise it (LimitNOFILE= in the service's unit, ulimit -n in a shell)`;
}

const REPORT_EVERY_MS = 60_000;

/**
 * Caps the server's connections at `cap`; a connection past it is closed at once. The refusals are logged at the
 * first, then with their count at most once a minute: a flood must not flood the log too.
 */
export function capConnections(server: Server, log: Logger, cap: number): void {
  server.maxConnections = cap;
  let refused = 0;
  let quiet: NodeJS.Timeout | undefined;
  const report = () => {
    if (refused > 0) {
      log.warn("connections refused", {
        refused,
        maxConnections: cap,
        why: "as many connections are open as the open-files limit leaves the installer (LimitNOFILE): a flood of connections, or clients that do not close theirs",
      });
    }
    refused = 0;
  };
  server.on("drop", () => {
    refused += 1;
    if (quiet) return;
    report();
    quiet = setTimeout(() => {
      quiet = undefined;
      report();
    }, REPORT_EVERY_MS);
    quiet.unref();
  });
}
