import { type Stats, lstatSync, statSync } from "node:fs";
import { chmod, lstat, mkdir, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { NeedsOperator } from "../common/errors.ts";

/**
 * A folder only this user may enter (0700). mkdir's mode passes through the umask and leaves an existing folder
 * as it is, so a folder of ours that has other bits is chmod-ed; someone else's is refused (its owner could plant
 * or read what is kept in it), and left as it is. A folder that cannot be made is refused with one sentence naming
 * it and why.
 */
export async function ensurePrivateDir(path: string, what = "the folder", instead?: string): Promise<string> {
  await makeFolder(path, `${what} ${path}`).catch((err: NodeJS.ErrnoException) => {
    // A file in its place, a path no folder can be made on, a folder this user may not write: a restart every 5 s
    // changes none of them (a full or read-only disk may pass: those stay errors a restart retries).
    const message = instead ? `${err.message}; choose ${instead}` : err.message;
    throw err.code !== undefined && NEEDS_OPERATOR.has(err.code) ? new NeedsOperator(message) : new Error(message);
  });
  const or = `or choose ${instead ?? "another folder"}`;
  await keptPrivate(path, await lstat(path), what, {
    link: `give the folder itself, ${or}`,
    risk: "the install code and the TLS key",
    owner: (own) => `chown it to uid ${own}, ${or}`,
  });
  return path;
}

/**
 * A folder the installer makes inside its state dir (the events folder), checked at start as the state dir is
 * (ensurePrivateDir), when it is there: not made (a start on a full disk makes nothing it does not need). A link in
 * its place, or a file, is refused with what to do: every read and write of its files would go through the link,
 * wherever it leads. `holds` says what is kept in it.
 */
export async function ensurePrivateDirInside(path: string, what: string, holds: string): Promise<void> {
  const found = await lstat(path).catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)));
  if (found === undefined) return;
  if (!found.isDirectory() && !found.isSymbolicLink()) {
    throw new NeedsOperator(`${what} ${path} is ${kindOf(found)}, not a folder: the installer keeps ${holds} there; move it away (the installer makes the folder), then start again`);
  }
  await keptPrivate(path, found, what, {
    link: `the installer keeps ${holds} in a folder of its own and reads and writes none through a link; remove the link (to keep what it leads to, move that folder to ${path} in its place), then start again`,
    risk: holds,
    owner: (own) => `chown it to uid ${own}, then start again`,
  });
}

/** ensurePrivateDir's look at what is at `path` (`found`, not followed), in `what`'s words: refused, or made 0700. */
async function keptPrivate(path: string, found: Stats, what: string, words: { link: string; risk: string; owner: (own: number) => string }): Promise<void> {
  // Not followed: run as root, the installer would make whatever folder a link points at 0700 and write its key there.
  const { mode, uid } = found;
  if (found.isSymbolicLink()) {
    throw new NeedsOperator(`${what} ${path} is a link (to ${await realpath(path).catch(() => "nowhere")}): ${words.link}`);
  }
  const own = process.getuid?.();
  if (own !== undefined && uid !== own) {
    throw new NeedsOperator(`${what} ${path} belongs to uid ${uid}, not to this user (uid ${own}): whoever owns it could read or plant ${words.risk}; ${words.owner(own)}`);
  }
  if ((mode & 0o777) !== 0o700) await chmod(path, 0o700);
}

/** What is at a path, in words for a sentence: "a named pipe". */
export const kindOf = (stats: Stats) =>
  stats.isFile() ? "a file" : stats.isDirectory() ? "a folder" : stats.isSymbolicLink() ? "a symbolic link" : stats.isFIFO() ? "a named pipe" : stats.isSocket() ? "a socket" : "a device";

/**
 * mkdir -p, one level at a time: Node's `recursive` retries a parent that says ENOENT although it exists,
 * and /proc says so for every mkdir, so `--state-dir /proc/x` hung for good (the fleet's --state and
 * --support-bundle too). Refused with one sentence naming `asked` and why; the error keeps mkdir's code.
 */
export async function makeFolder(given: string, asked: string, mode = 0o700): Promise<void> {
  // "new/" names the folder "new": a stat of "file/" says ENOTDIR, not what is there.
  const path = given.replace(/(?<=.)\/+$/, "");
  try {
    await mkdir(path, { mode });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" && (await isFolder(path))) return;
    if (code === "ENOENT" && dirname(path) !== path && !(await isFolder(dirname(path)))) {
      await makeFolder(dirname(path), asked, mode);
      return makeFolder(path, asked, mode);
    }
    throw Object.assign(new Error(`${asked} cannot be made: ${why(path, code)} (${code})`), { code, syscall: "mkdir", path });
  }
}

const NEEDS_OPERATOR = new Set(["EEXIST", "ENOTDIR", "ENOENT", "EACCES", "EPERM", "ELOOP", "ENAMETOOLONG"]);

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** The path itself or its nearest ancestor that exists (stat says ENOTDIR below a file); a link counts, wherever it leads. */
function nearestExisting(path: string): string {
  while (statOf(path, lstatSync) === undefined && dirname(path) !== path) path = dirname(path);
  return path;
}

const statOf = (path: string, how: typeof statSync): Stats | undefined => {
  try {
    return how(path);
  } catch {
    return undefined;
  }
};

/**
 * What stands where a folder was to be, at `path` or above it: a file, or a link that leads to no folder (stat of a
 * loop says ELOOP, of a dangling link ENOENT); undefined when a folder does (what stood there went since). Read
 * synchronously: it is asked while a sentence about a write that failed is made.
 */
export function inTheWay(path: string): string | undefined {
  const there = nearestExisting(path);
  const found = statOf(there, lstatSync);
  if (found === undefined) return undefined;
  const target = found.isSymbolicLink() ? statOf(there, statSync) : found;
  if (target === undefined) return `${there} is a link that leads to no folder (a loop, or its target is gone)`;
  return target.isDirectory() ? undefined : `${there} is a file, not a folder`;
}

function why(path: string, code: string | undefined): string {
  const parent = dirname(path);
  switch (code) {
    case "ENOENT":
      return `${parent} does not let folders be made in it`;
    case "EEXIST":
    case "ENOTDIR":
    case "ELOOP":
      return inTheWay(path) ?? `mkdir ${path} failed`;
    case "EACCES":
    case "EPERM":
      return `this user (uid ${process.getuid?.()}) may not write ${parent}`;
    case "EROFS":
      return `${parent} is on a read-only file system`;
    case "ENOSPC":
      return `the disk of ${parent} is full`;
    default:
      return `mkdir ${path} failed`;
  }
}
