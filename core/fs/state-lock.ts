import { randomBytes } from "node:crypto";
import { link, lstat, readdir, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { NeedsOperator } from "../common/errors.ts";
import { hasExited, startTimeOf } from "../process/group.ts";
import { stateLayout } from "../state/layout.ts";
import { kindOf } from "./private-dir.ts";
import { readIfPresent } from "./read-if-present.ts";
import { writePrivateFile } from "./write-private-file.ts";

export class StateDirLockedError extends NeedsOperator {
  constructor(readonly stateDir: string, readonly pid: number) {
    super(`another installer (pid ${pid}) is running on state dir ${stateDir}; stop it or pick another --state-dir`);
    this.name = "StateDirLockedError";
  }
}

export interface Lock {
  release(): Promise<void>;
  /** The pid named by the stale lock this one replaced. */
  tookOverFrom?: number;
}

interface Holder {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: tells a reused pid from the holder. */
  start?: string;
}

function parseHolder(text: string): Holder | undefined {
  const match = /^(\d+)(?: (\d+))?\n$/.exec(text);
  return match ? { pid: Number(match[1]), start: match[2] } : undefined;
}

/** Whether a process has this pid (one of another user's included; a zombie too). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A lock naming this process's own pid was left by an earlier process that had the same pid. */
async function isRunning(holder: Holder): Promise<boolean> {
  // A killed installer not yet reaped (a zombie) still answers kill(pid, 0) and has its start time.
  if (holder.pid === process.pid || !pidAlive(holder.pid) || hasExited(holder.pid)) return false;
  if (holder.start === undefined) return true;
  const start = startTimeOf(holder.pid);
  return start === null || String(start) === holder.start;
}

async function attempt(op: Promise<unknown>, expected: "EEXIST" | "ENOENT"): Promise<boolean> {
  try {
    await op;
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === expected) return false;
    throw err;
  }
}

/** A lock attempt's own file before it is linked into place ("new"), or a stale lock renamed away ("aside"), beside the lock. */
const uniqueName = (path: string, kind: "new" | "aside") => `${path}.${process.pid}.${randomBytes(6).toString("hex")}.${kind}`;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Who the lock at `path` names, and whether that process still runs (no lock: undefined). Reads only. */
export async function lockHolder(path: string): Promise<{ pid: number; running: boolean } | undefined> {
  const holder = parseHolder((await readIfPresent(path).catch(() => undefined)) ?? "");
  return holder && { pid: holder.pid, running: await isRunning(holder) };
}

/** One installer per state dir: its lock is the layout's (core/state/layout.ts). */
export function acquireStateLock(stateDir: string): Promise<Lock> {
  return acquireLock(stateLayout(stateDir).lock, (pid) => new StateDirLockedError(stateDir, pid));
}

/**
 * One process at a time holds the lock at `path`, a file naming the holder's pid and start time. It is
 * written complete under a unique name and linked into place (link fails if a lock exists), so
 * a racer never reads a half-written lock. A stale lock (its holder gone) is taken over: renamed aside, never unlinked
 * where it stands, so that two racers cannot both remove it and both link their own. A running holder: `locked`'s error.
 */
export async function acquireLock(path: string, locked: (pid: number) => Error): Promise<Lock> {
  const start = startTimeOf(process.pid);
  const record = start === null ? `${process.pid}\n` : `${process.pid} ${start}\n`;
  const mine = uniqueName(path, "new");
  // Not fsynced: no process holds a lock after a power cut, and what a cut can leave (no file, an empty one, half a
  // record) is taken over like any stale lock.
  await writePrivateFile(mine, record, { exclusive: true, sync: false });
  let tookOverFrom: number | undefined;
  try {
    for (let tries = 0; tries < 10; tries++) {
      if (await attempt(link(mine, path), "EEXIST")) {
        // Tidying only: a folder that cannot be listed keeps them, and the lock is held all the same.
        await removeLeftovers(path).catch(() => undefined);
        return { release: () => releaseIfOurs(path, record), tookOverFrom };
      }
      // Never followed nor read unless a plain file: a folder, a link or a pipe there is no lock this code wrote.
      const stats = await lstat(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return undefined;
        throw err;
      });
      if (stats === undefined) continue;
      if (!stats.isFile()) throw new NeedsOperator(`${path} is ${kindOf(stats)}, not a lock file (a lock is a file naming its holder's pid): remove it, then try again`);
      const text = await readIfPresent(path);
      if (text === undefined) continue;
      const holder = parseHolder(text);
      if (holder && (await isRunning(holder))) throw locked(holder.pid);
      const aside = uniqueName(path, "aside");
      if (!(await attempt(rename(path, aside), "ENOENT"))) continue;
      const moved = parseHolder(await readFile(aside, "utf8"));
      // A racer took the stale lock over between our read and our rename: give its lock back.
      if (moved && (await isRunning(moved))) await attempt(link(aside, path), "EEXIST");
      else tookOverFrom = moved?.pid;
      await rm(aside);
    }
  } finally {
    await rm(mine, { force: true });
  }
  throw new Error(`could not take the lock ${path}: it keeps changing hands`);
}

/** Temp and aside files of attempts at the lock whose process is gone. */
async function removeLeftovers(path: string): Promise<void> {
  const ours = new RegExp(`^${escaped(basename(path))}\\.(\\d+)\\.[0-9a-f]+\\.(new|aside)$`);
  const names = (await readdir(dirname(path))).filter((name) => {
    const pid = ours.exec(name)?.[1];
    return pid !== undefined && !pidAlive(Number(pid));
  });
  await Promise.all(names.map((name) => rm(join(dirname(path), name), { force: true })));
}

async function releaseIfOurs(path: string, record: string): Promise<void> {
  if ((await readIfPresent(path)) === record) await rm(path, { force: true });
}
