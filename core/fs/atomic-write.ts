import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isTempFileOf, tempPathOf } from "../state/layout.ts";
import { syncFolder, writeTempFile } from "./write-private-file.ts";

/**
 * Writes a private file (or with `mode: 0o644` one others may read) so that a reader sees the old or the new content,
 * never half: temp, fsync, rename, fsync folder.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, { mode = 0o600 as 0o600 | 0o644 } = {}): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o755 });
  const temp = tempPathOf(path);
  try {
    await writeTempFile(temp, data, { mode });
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncFolder(folder);
}

/**
 * The temp files writeFileAtomic left for `path` when its process was killed mid-write (any pid's): removed. Returns
 * their paths. For a file outside the state dir (node.yaml), whose temp may hold what the file would (its secrets).
 */
export async function removeInterruptedWritesOf(path: string): Promise<string[]> {
  const folder = dirname(path);
  const names = (await readdir(folder).catch(() => [] as string[])).filter((name) => isTempFileOf(path, name));
  await Promise.all(names.map((name) => rm(join(folder, name), { force: true })));
  return names.map((name) => join(folder, name));
}
