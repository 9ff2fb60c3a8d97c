import { link, lstat, mkdir, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { tempPathOf, writerOfTempFile } from "../state/layout.ts";
import { pidAlive } from "./state-lock.ts";
import { syncFolder, writeTempFile } from "./write-private-file.ts";

/**
 * Writes a private file (or with `mode: 0o644` one others may read) so that a reader sees the old or the new content,
 * never half: temp, fsync, rename, fsync folder. Its folder is made when missing.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, { mode = 0o600 as 0o600 | 0o644 } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await writeFilesAtomic([{ path, data }], { mode });
}

/**
 * writeFileAtomic, in folders that exist (a state dir is not made again 0755 if it went), for files that go together
 * (a key and its certificate): each is whole on disk, in its temp file, before any is put in place, so that a kill
 * leaves temp files (a start removes them), not some of the files. `exclusive`: a new file (EEXIST where one is), put
 * in place with a link, which fails where the name exists, not a rename over it. A write that fails leaves none of the
 * new files it made.
 */
export async function writeFilesAtomic(files: readonly { path: string; data: string | Uint8Array; exclusive?: boolean }[], { mode = 0o600 as 0o600 | 0o644 } = {}): Promise<void> {
  const folders = [...new Set(files.map(({ path }) => dirname(path)))];
  const temps = files.map(({ path }) => tempPathOf(path));
  const made: string[] = [];
  try {
    // Settled, not raced: a temp file still being opened when another failed would be made after its removal.
    const written = await Promise.allSettled(files.map(({ data }, i) => writeTempFile(temps[i]!, data, { mode })));
    const failed = written.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
    for (const [i, { path, exclusive }] of files.entries()) {
      if (!exclusive) await rename(temps[i]!, path);
      else {
        await link(temps[i]!, path);
        made.push(path);
      }
    }
  } catch (err) {
    await Promise.all([...temps, ...made].map((path) => rm(path, { force: true })));
    throw err;
  }
  // A linked file's temp name is a second name of it.
  await Promise.all(files.map(({ exclusive }, i) => (exclusive ? rm(temps[i]!, { force: true }) : undefined)));
  await Promise.all(folders.map(syncFolder));
}

/**
 * The temp files writeFileAtomic left for `path` when its process was killed mid-write (any pid's): removed. Returns
 * their paths. For a file outside the state dir (node.yaml), whose temp may hold what the file would (its secrets).
 * `ofGoneProcesses`: only those whose writer's pid runs no process, for a file that processes holding no common lock
 * write (the fleet's report, beside state files of different runs; a support bundle's -o FILE, its temp file
 * unguessable); a reused pid keeps its file, which is no loss. A file another user owns is never one of this user's
 * writes: in a folder others may write to (root's `-o /tmp/x`), a name planted there is not removed.
 */
export async function removeInterruptedWritesOf(path: string, { ofGoneProcesses = false } = {}): Promise<string[]> {
  const folder = dirname(path);
  // Files alone: a folder of that name is no write's (rm would refuse it).
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const candidates = entries
    .filter((entry) => {
      const writer = entry.isFile() ? writerOfTempFile(path, entry.name) : undefined;
      return writer !== undefined && !(ofGoneProcesses && pidAlive(writer));
    })
    .map((entry) => entry.name);
  const uid = process.getuid?.();
  const owned = await Promise.all(candidates.map((name) => (uid === undefined ? true : lstat(join(folder, name)).then((s) => s.uid === uid, () => false))));
  const names = candidates.filter((_, i) => owned[i]);
  await Promise.all(names.map((name) => rm(join(folder, name), { force: true })));
  return names.map((name) => join(folder, name));
}
