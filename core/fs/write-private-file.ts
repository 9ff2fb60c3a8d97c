import { closeSync, constants, fchmodSync, openSync, unlinkSync, writeFileSync } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";

/**
 * Writes a file only its owner may read (0600) and fsyncs it. The mode is set on the open file too:
 * open's mode passes through the umask and leaves a file that already exists as it was.
 * `exclusive`: fail with EEXIST rather than overwrite. `sync: false`: no fsync, for a file that means nothing after a
 * power cut. `mode: 0o644`: others may read it (only its owner ever writes it).
 */
export async function writePrivateFile(path: string, data: string | Uint8Array, { exclusive = false, sync = true, mode = 0o600 as 0o600 | 0o644 } = {}): Promise<void> {
  const file = await open(path, exclusive ? "wx" : "w", mode);
  try {
    await fill(file, data, mode, sync);
  } catch (err) {
    // A file this call made and could not fill (a full disk) is no file: it goes, not left holding a name.
    if (exclusive) await unlink(path).catch(() => undefined);
    throw err;
  }
}

/**
 * A temp file written anew, never through a link in its place (a crash's leftover, or one planted to point at another
 * file): opened with O_NOFOLLOW, a link is removed and the file made with O_EXCL. Then as writePrivateFile.
 */
export async function writeTempFile(path: string, data: string | Uint8Array, { mode = 0o600 as 0o600 | 0o644 } = {}): Promise<void> {
  await fill(await openTempFile(path, mode), data, mode, true);
}

const TRUNCATE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
const FRESH = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The temp file of writeTempFile, open for writing, for a caller that writes it piece by piece (a download).
 * `fresh`: made new (O_EXCL), for an unguessable name in a folder others may write to: nothing there is written into.
 */
export function openTempFile(path: string, mode = 0o600, { fresh = false } = {}): Promise<FileHandle> {
  if (fresh) return open(path, FRESH, mode);
  return open(path, TRUNCATE, mode).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== "ELOOP") throw err;
    await unlink(path);
    return open(path, FRESH, mode);
  });
}

/** The same for a synchronous write (a start's notices, written before its banner). */
export function writeTempFileSync(path: string, data: string): void {
  let fd: number;
  try {
    fd = openSync(path, TRUNCATE, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ELOOP") throw err;
    unlinkSync(path);
    fd = openSync(path, FRESH, 0o600);
  }
  try {
    writeFileSync(fd, data);
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

async function fill(file: FileHandle, data: string | Uint8Array, mode: number, sync: boolean): Promise<void> {
  try {
    await file.writeFile(data);
    await file.chmod(mode);
    if (sync) await file.sync();
  } finally {
    await file.close();
  }
}

/** Makes a rename or a new name in the folder survive power loss. */
export async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
