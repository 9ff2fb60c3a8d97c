import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { syncFolder } from "./durable-json-file.ts";

/** Write a file so that a reader sees the old or the new content, never half: temp, fsync, rename, fsync folder. */
export async function writeFileAtomic(path: string, text: string, mode: number): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o755 });
  const temp = join(folder, `.${basename(path)}.${process.pid}.tmp`);
  try {
    const file = await open(temp, "w", mode);
    try {
      await file.writeFile(text);
      await file.chmod(mode);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncFolder(folder);
}
