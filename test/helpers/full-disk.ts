import { execFile } from "node:child_process";
import { closeSync, openSync, readFileSync, statfsSync, ftruncateSync, fstatSync, writeSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";
import { storageError } from "../../core/fs/storage-error.ts";

const run = promisify(execFile);

/** The error a write to the state dir `stateDir` on a full file system (ENOSPC) is, for a test that makes a service refuse one. */
export const noSpace = (stateDir: string) => storageError(stateDir, Object.assign(new Error("no space"), { code: "ENOSPC" }));

/**
 * A file that is there, a regular file of 4096 bytes to stat, whose every read fails (EINVAL: lo has no link speed), as
 * a disk's EIO does; `refusal`: its error's message, undefined where it reads or is not there (a test then skips).
 */
export const REFUSES_READ = "/sys/class/net/lo/speed";
export const refusal = (() => {
  try {
    readFileSync(REFUSES_READ);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : (err as Error).message;
  }
})();

/** Why a test cannot have a real small file system here (not root, or mount refused); undefined when it can. */
export const noTmpfs = process.getuid?.() !== 0 ? "needs root to mount a tmpfs" : undefined;

/**
 * A real small file system at `path` (a tmpfs of `size`, 0700): full and read-only are real, not simulated. Returns
 * why it could not be mounted (a test then skips, saying so), or undefined; unmount it with `unmount`.
 */
export async function mountTmpfs(path: string, size = "3m"): Promise<string | undefined> {
  await mkdir(path, { recursive: true });
  try {
    await run("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", path]);
    return undefined;
  } catch (err) {
    return `mounting a tmpfs is not allowed here (${(err as Error).message.split("\n")[0]})`;
  }
}

export async function unmount(path: string): Promise<void> {
  await run("umount", ["-l", path]).catch(() => undefined);
}

/**
 * Fills the file system to its last page, or with `leave` blocks of it left free; returns a function that frees it
 * again.
 */
export function fill(folder: string, { leave = 0 } = {}): () => Promise<void> {
  const path = join(folder, "filler");
  const fd = openSync(path, "a");
  for (const size of [256 * 1024, 4096, 1]) {
    const chunk = Buffer.alloc(size, 1);
    for (;;) {
      try {
        writeSync(fd, chunk);
      } catch {
        break;
      }
    }
  }
  if (leave > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leave * statfsSync(folder).bsize));
  closeSync(fd);
  return () => rm(path, { force: true });
}

/** `mountTmpfs` for test `t`, unmounted when it ends; false, the test marked skipped saying why, where it cannot be. */
export async function tmpfsFor(t: TestContext, path: string, size?: string): Promise<boolean> {
  const problem = await mountTmpfs(path, size);
  if (problem) {
    t.skip(problem);
    return false;
  }
  t.after(() => unmount(path));
  return true;
}
