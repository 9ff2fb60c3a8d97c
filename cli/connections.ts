import { readFileSync } from "node:fs";
import type { Server } from "node:net";
import type { Logger } from "../core/common/log.ts";

/**
 * Every open connection is an open file, and so are the store's writes, an attempt's events and firstboot's pipes: a
 * flood of connections (a scan, a client that never shakes hands) must not take the files the install needs. The
 * server takes at most what the open-files limit leaves once those have theirs; a connection that has not shaken
 * hands in `handshakeTimeoutMs` is closed (Node's default keeps it two minutes).
 */
export const CONNECTION_LIMITS = {
  /** Open files kept for the service's own: the store and its temp files, events, firstboot's pipes, Node's. */
  reserved: 256,
  /** At least this many connections, however low the limit: a console and a fleet's driver still get in. */
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

/** The most connections served at once under an open-files limit (1,024 when it is not known: most systems' soft limit). */
export function connectionCap(openFiles: number | undefined): number {
  return Math.min(CONNECTION_LIMITS.most, Math.max(CONNECTION_LIMITS.least, (openFiles ?? 1024) - CONNECTION_LIMITS.reserved));
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
