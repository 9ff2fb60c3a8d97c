import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** Why a text file an operator named cannot be used, in words for a message that names it. */
export class TextFileProblem extends Error {}

/**
 * A text file an operator names (a plan, an install code's file), read only when it is one: a named pipe is not
 * waited on (opened without blocking), a device (/dev/zero) or a file over `maxBytes` is refused before a byte is
 * read, and bytes that are not UTF-8 are refused, not shown as U+FFFD in what a node gets.
 */
export async function readTextFile(path: string, maxBytes: number): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new TextFileProblem(`${path} is ${stats.isDirectory() ? "a folder" : stats.isFIFO() ? "a named pipe" : "a device or socket"}, not a file`);
    if (stats.size > maxBytes) throw new TextFileProblem(`${path} is ${stats.size} bytes, over the ${maxBytes} a file here may have`);
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw new TextFileProblem(`${path} is over the ${maxBytes} bytes a file here may have`);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new TextFileProblem(`${path} is not UTF-8 text (save it as UTF-8)`);
    }
  } finally {
    await handle.close();
  }
}
