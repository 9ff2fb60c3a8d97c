import { readFile } from "node:fs/promises";

/** A file's text, or undefined when there is no such file; other errors are thrown. */
export async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}
