import { accessSync, constants } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { InstallerError } from "../common/errors.ts";
import { inTheWay } from "./private-dir.ts";

const WHY: Record<string, string> = {
  ENOSPC: "no space left on its file system",
  EDQUOT: "the disk quota is used up",
  EROFS: "its file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EIO: "an I/O error",
  EISDIR: "a folder is where a file goes",
  ENOTDIR: "a file is where a folder goes",
  // The installer's writes open their files with O_NOFOLLOW: a link in a file's place is refused so.
  ELOOP: "a link is where a file goes",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
};

/**
 * Why a file could not be written, for a message that names the file: `ENOSPC: no space left on its file system`,
 * `EROFS: its file system is read-only`, …; Node's own message for the rest. Its words are any I/O error's: a read's
 * too (`EACCES: permission denied`, `EIO: an I/O error`).
 */
export function notWrittenBecause(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException)?.code;
  const why = whyOf(cause);
  if (code && why) return `${code}: ${why}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * `err` naming `path` when it is an I/O error that names no file: Node names the file an open failed on, never the
 * one a read or a stat of an open file failed on (EIO, a sysfs file's EINVAL), which was then said without it.
 */
export function namingFile(path: string, err: unknown): unknown {
  const error = err as NodeJS.ErrnoException | undefined;
  if (typeof error?.code === "string" && error.path === undefined) error.path = path;
  return err;
}

/** What WHY says of a write error, when it says anything: a folder that could not be made for a file in the way (mkdir's EEXIST) is said as ENOTDIR is. */
function whyOf(cause: unknown): string | undefined {
  const { code, syscall } = (cause ?? {}) as NodeJS.ErrnoException;
  if (code === "EEXIST" && syscall === "mkdir") return WHY.ENOTDIR;
  return code === undefined ? undefined : WHY[code];
}

/**
 * What is in the way of a write that failed with `cause`, as a sentence naming it: a folder where the file goes
 * (EISDIR: a rename names it as its `dest`), a file where a folder goes (ENOTDIR, or mkdir's EEXIST: the path or the
 * nearest part of it there is); undefined for another cause, or when nothing is in the way any more.
 */
function inTheWayOf(cause: unknown): string | undefined {
  const { code, syscall, path, dest } = (cause ?? {}) as NodeJS.ErrnoException & { dest?: string };
  if (code === "EISDIR" && (dest ?? path) !== undefined) return `${dest ?? path} is a folder, not a file`;
  if (code === "ELOOP" && path !== undefined) return `${path} is a link, not a file`;
  if ((code === "ENOTDIR" || (code === "EEXIST" && syscall === "mkdir")) && path !== undefined) return inTheWay(path);
  return undefined;
}

/**
 * What makes a write that failed with `cause` work again, as it follows its cause: what is in the way (a folder where
 * the file goes, a file where a folder goes: an operator's, a restore's) named and moved, free space for a full disk or
 * quota, a remount for a read-only file system (or `elsewhere`), permissions for a refusal, the disk checked for an I/O error;
 * for another cause, no guess.
 */
export function writeRemedy(cause: unknown, elsewhere?: string): string {
  const inTheWay = inTheWayOf(cause);
  if (inTheWay) return `${inTheWay}: move it out of the way`;
  switch ((cause as NodeJS.ErrnoException)?.code) {
    case "ENOSPC":
    case "EDQUOT":
      return "free space on its file system";
    case "EROFS":
      return `remount its file system read-write${elsewhere ? `, or ${elsewhere}` : ""}`;
    case "EACCES":
    case "EPERM":
      return `make it writable by the user the installer runs as (uid ${process.getuid?.()}): check its owner and mode`;
    case "EMFILE":
    case "ENFILE":
      return "raise the open-files limit (LimitNOFILE= in the service's unit, ulimit -n in a shell), or wait for connections to close";
    case "EIO":
      return "check the disk it is on (the kernel's log: journalctl -k) and its file system (fsck)";
    default:
      // Not known to be a full disk: a pseudo file system's ENOENT (/proc), a name too long, a folder gone.
      return "check that its folder exists and takes new files from this user";
  }
}

/** For a state dir: its remedy's other way out of a read-only file system. */
const STATE_DIR_ELSEWHERE = "give the installer another --state-dir";

/** writeRemedy for the state dir. */
const stateDirRemedy = (cause: unknown) => writeRemedy(cause, STATE_DIR_ELSEWHERE);

/** A file this machine could not write (a full disk, a folder that takes no file): `path` and why, for its caller to say what to do. */
export class NotWrittenError extends Error {
  constructor(readonly path: string, cause: unknown) {
    super(`${path} cannot be written (${notWrittenBecause(cause)})`, { cause });
    this.name = "NotWrittenError";
  }
}

/** SPEC §4: the state dir cannot be written; nothing was changed. */
export function storageError(stateDir: string, cause: unknown): InstallerError {
  const code = (cause as NodeJS.ErrnoException)?.code;
  // ENOTDIR with a file in the way is that file's to move: a restart would not make the folder again.
  if (code === "ENOENT" || (code === "ENOTDIR" && inTheWayOf(cause) === undefined)) {
    const error = new InstallerError({
      code: "INSUFFICIENT_STORAGE",
      detail: `The state dir ${stateDir}, or a folder in it, is gone (${code}: was it removed while the installer ran?); nothing was changed. Restart the installer, which makes it again; what it held (the draft, the attempts' records) is lost.`,
    });
    gone.add(error);
    return error;
  }
  const remedy = stateDirRemedy(cause);
  const error = new InstallerError({
    code: "INSUFFICIENT_STORAGE",
    detail: `The state dir ${stateDir} cannot be written (${notWrittenBecause(cause)}); nothing was changed. ${remedy[0]!.toUpperCase()}${remedy.slice(1)}, then retry; the installer recovers by itself.`,
  });
  remedies.set(error, remedy);
  return error;
}

export function isStorageError(err: unknown): err is InstallerError {
  return err instanceof InstallerError && err.code === "INSUFFICIENT_STORAGE";
}

/** A storage error's why (its detail before "; nothing was changed") and what makes writes work again, for a caller's own sentence. */
export function storageFault(err: InstallerError): { why: string; remedy: string; gone: boolean } {
  const why = err.detail.replace(/; nothing was changed\..*$/s, "");
  const isGone = gone.has(err);
  return { why, gone: isGone, remedy: isGone ? "restart the installer, which makes the state dir again" : (remedies.get(err) ?? writeRemedy(undefined)) };
}

/** Each storage error's remedy, as its cause made it. */
const remedies = new WeakMap<InstallerError, string>();

/** The storage errors of a state dir that is gone (storageError knew it by its cause's code): their remedy is a restart. */
const gone = new WeakSet<InstallerError>();

/**
 * For a start that cannot write its state dir: one sentence naming it, why, and what to do; undefined for an error
 * that is not the state dir's file system refusing (a bug, a lock held).
 */
export function startStorageProblem(stateDir: string, err: unknown): string | undefined {
  if (isStorageError(err)) {
    const fault = storageFault(err);
    const { remedy, gone } = fault;
    // Begun as the sentence below is: a start refused at its lock and one refused at a later write say it alike.
    const why = fault.why.replace(/^The /, "the ");
    return gone ? `${why}: start the installer again, which makes it again` : `${why}: ${remedy}, then start the installer again`;
  }
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  const why = whyOf(err);
  if (!code || !why) return undefined;
  // Only the state dir's own: an operator's --tls-key or --host-facts it cannot read is said as Node says it, naming
  // that file. A write's ENOSPC, EDQUOT or EROFS names no file; at a start only the state dir is written.
  const inside = path !== undefined && isIn(stateDir, path);
  if (!inside && !(path === undefined && ["ENOSPC", "EDQUOT", "EROFS"].includes(code))) return undefined;
  return `the state dir ${stateDir} cannot be written (${code}: ${why}): ${stateDirRemedy(err)}, then start the installer again`;
}

function isIn(stateDir: string, path: string): boolean {
  return resolve(path) === resolve(stateDir) || resolve(path).startsWith(`${resolve(stateDir)}${sep}`);
}

/**
 * For a command that reads the state dir (status, code, support-bundle) run by a user the state dir's permissions
 * keep out: one sentence naming the file and what to do; undefined for any other error. A folder above the state dir
 * that does not let the user through is named, not the state dir.
 */
export function stateDirNotReadable(stateDir: string, err: unknown): string | undefined {
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  if ((code !== "EACCES" && code !== "EPERM") || path === undefined || !isIn(stateDir, path)) return undefined;
  const closed = closedAbove(stateDir);
  const why = closed
    ? `the folder ${closed}, above the state dir ${stateDir}, does not let this user (uid ${process.getuid?.()}) through`
    : `the state dir ${stateDir} is readable by its owner or root alone`;
  return `cannot read ${path} (${code}: ${WHY[code]}): ${why}: run it with sudo (or as ${closed ? "a user it lets through" : "that user"})`;
}

/** The first folder on the way to `stateDir`, from the root, that this user may not pass through (no search permission); undefined when each lets it. */
function closedAbove(stateDir: string): string | undefined {
  const above: string[] = [];
  for (let folder = dirname(resolve(stateDir)); !above.includes(folder); folder = dirname(folder)) above.unshift(folder);
  return above.find((folder) => {
    try {
      accessSync(folder, constants.X_OK);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "EACCES";
    }
  });
}
