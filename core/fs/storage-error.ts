import { resolve, sep } from "node:path";
import { InstallerError } from "../common/errors.ts";

const WHY: Record<string, string> = {
  ENOSPC: "no space left on its file system",
  EDQUOT: "the disk quota is used up",
  EROFS: "its file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EIO: "an I/O error",
};

/**
 * Why a file could not be written, for a message that names the file: `ENOSPC: no space left on its file system`,
 * `EROFS: its file system is read-only`, …; Node's own message for the rest.
 */
export function notWrittenBecause(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException)?.code;
  if (code && WHY[code]) return `${code}: ${WHY[code]}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * What makes a write that failed with `cause` work again, as it follows its cause: free space for a full disk or quota,
 * a remount for a read-only file system (or `elsewhere`), permissions for a refusal.
 */
export function writeRemedy(cause: unknown, elsewhere?: string): string {
  switch ((cause as NodeJS.ErrnoException)?.code) {
    case "ENOSPC":
    case "EDQUOT":
      return "free space on its file system";
    case "EROFS":
      return `remount its file system read-write${elsewhere ? `, or ${elsewhere}` : ""}`;
    case "EACCES":
    case "EPERM":
      return `make it writable by the user the installer runs as (uid ${process.getuid?.()}): check its owner and mode`;
    default:
      return "free space on its file system (or make it writable)";
  }
}

/** For a state dir: its remedy's other way out of a read-only file system. */
const STATE_DIR_ELSEWHERE = "give the installer another --state-dir";

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
  if (code === "ENOENT" || code === "ENOTDIR") {
    const error = new InstallerError({
      code: "INSUFFICIENT_STORAGE",
      detail: `The state dir ${stateDir}, or a folder in it, is gone (${code}: was it removed while the installer ran?); nothing was changed. Restart the installer, which makes it again; what it held (the draft, the attempts' records) is lost.`,
    });
    gone.add(error);
    return error;
  }
  const remedy = writeRemedy(cause, STATE_DIR_ELSEWHERE);
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
  if (!code || !WHY[code]) return undefined;
  // Only the state dir's own: an operator's --tls-key or --host-facts it cannot read is said as Node says it, naming
  // that file. A write's ENOSPC, EDQUOT or EROFS names no file; at a start only the state dir is written.
  const inside = path !== undefined && isIn(stateDir, path);
  if (!inside && !(path === undefined && ["ENOSPC", "EDQUOT", "EROFS"].includes(code))) return undefined;
  return `the state dir ${stateDir} cannot be written (${code}: ${WHY[code]}): ${writeRemedy(err, STATE_DIR_ELSEWHERE)}, then start the installer again`;
}

function isIn(stateDir: string, path: string): boolean {
  return resolve(path) === resolve(stateDir) || resolve(path).startsWith(`${resolve(stateDir)}${sep}`);
}

/**
 * For a command that reads the state dir (status, code, support-bundle) run by a user the state dir's permissions
 * keep out: one sentence naming the file and what to do; undefined for any other error.
 */
export function stateDirNotReadable(stateDir: string, err: unknown): string | undefined {
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  if ((code !== "EACCES" && code !== "EPERM") || path === undefined || !isIn(stateDir, path)) return undefined;
  return `cannot read ${path} (${code}: ${WHY[code]}): the state dir ${stateDir} is readable by its owner or root alone: run it with sudo (or as that user)`;
}
