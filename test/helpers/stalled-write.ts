import fsp, { type FileHandle } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";

/** Puts `by` in place of node:fs/promises' `name`, for the ESM imports of it too, until the returned function is called. */
export function swapFsPromise<K extends keyof typeof fsp>(name: K, by: (real: (typeof fsp)[K]) => (typeof fsp)[K]): () => void {
  const real = fsp[name];
  (fsp as Record<K, unknown>)[name] = by(real);
  syncBuiltinESMExports();
  return () => {
    (fsp as Record<K, unknown>)[name] = real;
    syncBuiltinESMExports();
  };
}

/**
 * Holds every write of a file opened at a path `which` picks (FileHandle.writeFile) until `release`: what is on disk
 * while one is held is what a kill -9 at that moment leaves. `held` resolves once a write is held; `opened` lists every
 * path opened meanwhile. For one test at a time: it swaps node:fs/promises' open until `release` (which may be called
 * again: a test's `after` calls it too, in case it failed before its own call).
 */
export function stallWrites(which: (path: string) => boolean): { held: Promise<void>; opened: string[]; release: () => void } {
  let hold!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (hold = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const opened: string[] = [];
  const restore = swapFsPromise("open", (real) => async (...args: Parameters<typeof real>): Promise<FileHandle> => {
    opened.push(String(args[0]));
    const file = await real(...args);
    if (!which(String(args[0]))) return file;
    const write = file.writeFile.bind(file);
    file.writeFile = async (...data: Parameters<FileHandle["writeFile"]>) => {
      hold();
      await released;
      return write(...data);
    };
    return file;
  });
  return {
    held,
    opened,
    release: () => {
      restore();
      release();
    },
  };
}
