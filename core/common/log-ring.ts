import { closeSync, constants, ftruncateSync, openSync, readSync, renameSync, statSync, writeFileSync } from "node:fs";
import { notWrittenBecause, writeRemedy } from "../fs/storage-error.ts";

/** Appended to, never through a link put in its place: a service run as root would write into whatever it leads to. */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Each file of the ring: the two together hold the last 1 MB of lines. */
const HALF = 512 * 1024;

/**
 * Appends log lines to `path`, moving it to `older` once it holds half the cap: the service's recent lines stay in
 * the state dir, bounded, for a support bundle made while the service is down. Each line opens and closes the file,
 * so between lines nothing in the state dir is held open (a read-only remount is never refused as busy). A line the
 * disk cannot take is dropped, whole: the log must never stop the service. `troubled` hears, once, that lines are
 * dropped (why, and what to do), and once that they are kept again (undefined); it may log: its own line is not kept.
 */
export function createLogRing(path: string, older: string, troubled: (problem: string | undefined) => void = () => undefined): (line: string) => void {
  let size: number | undefined;
  /**
   * While lines are dropped: the shortest one dropped for want of space, in bytes (0 for another cause). A disk full but
   * for a block's end still takes shorter lines.
   */
  let failing: number | undefined;
  return (line) => {
    try {
      // A line a kill -9 cut (a write is cut at a page's end) is left as it is; this one starts a line of its own.
      let torn = false;
      if (size === undefined) {
        size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
        torn = size > 0 && lastByte(path, size) !== 0x0a;
      }
      if (size >= HALF) {
        renameSync(path, older);
        size = 0;
        torn = false;
      }
      const whole = size;
      const text = torn ? `\n${line}` : line;
      const fd = openSync(path, APPEND, 0o600);
      try {
        writeFileSync(fd, text);
      } catch (err) {
        // A full disk can take part of a line: cut back to the last whole one, or the next line would be glued to it.
        try {
          ftruncateSync(fd, whole);
        } catch {
          // Nothing more to do: the line is dropped either way.
        }
        throw err;
      } finally {
        closeSync(fd);
      }
      const bytes = Buffer.byteLength(text);
      size += bytes;
      // Over only once a line as long as one dropped is kept: a short one kept between long ones dropped is no end.
      if (failing !== undefined && bytes >= failing) {
        failing = undefined;
        troubled(undefined);
      }
    } catch (err) {
      size = undefined;
      const first = failing === undefined;
      // Only a lack of space lets a shorter line through; after any other cause, the next line kept is its end.
      const full = ["ENOSPC", "EDQUOT"].includes((err as NodeJS.ErrnoException).code ?? "");
      failing = Math.min(failing ?? Infinity, full ? Buffer.byteLength(line) : 0);
      if (first) troubled(refusal(path, err as NodeJS.ErrnoException));
    }
  };
}

function refusal(path: string, err: NodeJS.ErrnoException): string {
  // O_NOFOLLOW's refusal of a link.
  if (err.code === "ELOOP") {
    return `${path} is a link: no line is written through a link (as root it would go into whatever the link leads to); remove it to have the lines kept there again, every line still goes to stderr (the journal)`;
  }
  // What to do follows the cause: space freed, or what is in the way named (the older half's name a folder, its rename's).
  return `${path} takes no line (${notWrittenBecause(err)}): ${writeRemedy(err)}; lines go to stderr (the journal) alone until it does`;
}

function lastByte(path: string, size: number): number | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const byte = Buffer.alloc(1);
    return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : undefined;
  } finally {
    closeSync(fd);
  }
}
