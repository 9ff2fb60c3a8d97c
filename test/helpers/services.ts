import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../core/log.ts";
import { STORE_FILE, openStore, type Store } from "../../core/store.ts";
import { tempDir } from "./installer.ts";

/** The one injected clock of a unit test: it moves only when the test moves it. */
export interface ManualClock {
  now: () => Date;
  advance(ms: number): void;
}

export function manualClock(start = "2026-12-04T12:00:00.000Z"): ManualClock {
  let ms = Date.parse(start);
  return { now: () => new Date(ms), advance: (by) => void (ms += by) };
}

export interface LogEntry {
  level: "info" | "warn" | "error";
  message: string;
  [field: string]: unknown;
}

/** A logger that keeps what the services log, for the test to read. */
export function recordingLog(): { log: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (message: string, fields?: Record<string, unknown>) => void entries.push({ level, message, ...fields });
  return { log: { info: at("info"), warn: at("warn"), error: at("error") }, entries };
}

/** The store on a fresh temp state dir, as `serve` opens it. */
export async function tempStore(now: () => Date = () => new Date()): Promise<{ stateDir: string; store: Store }> {
  const stateDir = join(await tempDir("stratum-unit-"), "state");
  const { store } = await openStore(stateDir, now);
  return { stateDir, store };
}

/** The store document as the next start would read it. */
export async function reopened(stateDir: string): Promise<Store> {
  return (await openStore(stateDir, () => new Date())).store;
}

/**
 * Makes every store write in `stateDir` fail for real (a folder stands where the write's temp file goes,
 * so the write fails with EISDIR whoever runs the test, root included); the returned function undoes it.
 */
export async function refuseWrites(stateDir: string): Promise<() => Promise<void>> {
  const blocker = join(stateDir, `.${STORE_FILE}.${process.pid}.tmp`);
  await mkdir(blocker);
  return () => rm(blocker, { recursive: true, force: true });
}
