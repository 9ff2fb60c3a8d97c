import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { tempPathOf } from "../state/layout.ts";
import { syncFolder, writePrivateFile } from "./write-private-file.ts";

/** Writes a private file so that a reader sees the old or the new content, never half: temp, fsync, rename, fsync folder. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o755 });
  const temp = tempPathOf(path);
  try {
    await writePrivateFile(temp, text);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncFolder(folder);
}
