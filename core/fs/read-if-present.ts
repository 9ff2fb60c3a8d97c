import { readTextFile } from "./read-text-file.ts";

/**
 * A file's text, or undefined when there is no such file; other errors are thrown. Read as readTextFile reads: a named
 * pipe in its place is refused, not waited on, and a device is not read without end (TextFileProblem). Bytes that are
 * not UTF-8 read as U+FFFD unless `lenient` is false.
 */
export async function readIfPresent(path: string, { maxBytes = Number.MAX_SAFE_INTEGER, lenient = true } = {}): Promise<string | undefined> {
  try {
    return await readTextFile(path, maxBytes, { lenient });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}
