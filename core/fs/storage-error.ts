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
  return new InstallerError({
    code: "INSUFFICIENT_STORAGE",
    detail: `The state dir ${stateDir} cannot be written (${notWrittenBecause(cause)}); nothing was changed. Free space on its file system (or make it writable again), then retry; the installer recovers by itself.`,
  });
}

export function isStorageError(err: unknown): err is InstallerError {
  return err instanceof InstallerError && err.code === "INSUFFICIENT_STORAGE";
}

/** A storage error's why (its detail before "; nothing was changed") and what makes writes work again, for a caller's own sentence. */
export function storageFault(err: InstallerError): { why: string; remedy: string; gone: boolean } {
  const why = err.detail.replace(/; nothing was changed\..*$/s, "");
  const isGone = gone.has(err);
  return { why, gone: isGone, remedy: isGone ? "restart the installer, which makes the state dir again" : "free space on its file system (or make it writable)" };
}

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
  return `the state dir ${stateDir} cannot be written (${code}: ${WHY[code]}): free space on its file system (or make it writable), then start the installer again`;
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
