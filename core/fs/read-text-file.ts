import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { capText } from "../common/cut-text.ts";

/** Why a text file an operator named cannot be used, in words for a message that names it. */
export class TextFileProblem extends Error {
  /** The message without the path it begins with: "is a named pipe, not a file". */
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path} ${reason}`);
    this.reason = reason;
  }
}

/**
 * Why an operator's file could not be read, for a message that has already named it: `it is a folder, not a file`
 * (a TextFileProblem's reason), or Node's words without the path they end with (`EACCES: permission denied`), cut.
 */
export function whyUnreadable(error: Error, path: string): string {
  return error instanceof TextFileProblem ? `it ${error.reason}` : capText(error.message.replace(`, open '${path}'`, ""), 256).text;
}

/**
 * A text file an operator names (a plan, an install code's file), read only when it is one: a named pipe is not
 * waited on (opened without blocking), a device (/dev/zero) or a file over `maxBytes` is refused before a byte is
 * read, and bytes that are not UTF-8 are refused, not shown as U+FFFD in what a node gets.
 */
export async function readTextFile(path: string, maxBytes: number, { noLink = false, lenient = false } = {}): Promise<string> {
  // noLink: a file another process left for this one, never another file's text through a link put in its place.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | (noLink ? constants.O_NOFOLLOW : 0)).catch((err: NodeJS.ErrnoException) => {
    throw noLink && err.code === "ELOOP" ? new TextFileProblem(path, "is a link, not a file") : err;
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new TextFileProblem(path, `is ${stats.isDirectory() ? "a folder" : stats.isFIFO() ? "a named pipe" : "a device or socket"}, not a file`);
    if (stats.size > maxBytes) throw new TextFileProblem(path, `is ${stats.size} bytes, over the ${maxBytes} a file here may have`);
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw new TextFileProblem(path, `is over the ${maxBytes} bytes a file here may have`);
    // lenient: bytes that are not UTF-8 read as U+FFFD (the installer's own file, damaged: what is readable is kept).
    return lenient ? new TextDecoder("utf-8").decode(bytes) : utf8Text(bytes, path);
  } finally {
    await handle.close();
  }
}

/**
 * A stream an operator pipes in (stdin), read as readTextFile reads a file: refused once it passes `maxBytes` (a
 * `< /dev/zero` is not read to the end of memory), and when a byte is not UTF-8. `name` names it in the message.
 */
export async function readTextStream(stream: AsyncIterable<Uint8Array>, name: string, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += chunk.length;
    if (length > maxBytes) throw new TextFileProblem(name, `is over the ${maxBytes} bytes a file here may have`);
    chunks.push(chunk);
  }
  return utf8Text(Buffer.concat(chunks), name);
}

/** The text of an operator's file (`path` names it, or the stream it came from), refused when a byte is not UTF-8. */
export function utf8Text(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new TextFileProblem(path, "is not UTF-8 text (save it as UTF-8)");
  }
}
