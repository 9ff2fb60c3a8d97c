import { readdir, readFile } from "node:fs/promises";

// /sys and /proc differ between kernels and machines: a missing or unreadable entry is a fact left unknown, not a failure.

/** A kernel attribute's text, trimmed; undefined when it cannot be read. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    return undefined;
  }
}

/** A folder's entries, sorted; none when it cannot be read. */
export async function listDir(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort();
  } catch {
    return [];
  }
}
