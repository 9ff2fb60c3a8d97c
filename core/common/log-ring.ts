import { appendFileSync, renameSync, statSync, truncateSync } from "node:fs";

/** Each file of the ring: the two together hold the last 1 MB of lines. */
const HALF = 512 * 1024;

/**
 * Appends log lines to `path`, moving it to `older` once it holds half the cap: the service's recent lines stay in
 * the state dir, bounded, for a support bundle made while the service is down. Each line opens and closes the file,
 * so between lines nothing in the state dir is held open (a read-only remount is never refused as busy). A line the
 * disk cannot take is dropped, whole: the log must never stop the service.
 */
export function createLogRing(path: string, older: string): (line: string) => void {
  let size: number | undefined;
  return (line) => {
    let whole: number | undefined;
    try {
      size ??= statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      if (size >= HALF) {
        renameSync(path, older);
        size = 0;
      }
      whole = size;
      appendFileSync(path, line, { mode: 0o600 });
      size += Buffer.byteLength(line);
    } catch {
      // A full disk can take part of a line: cut back to the last whole one, or the next line would be glued to it.
      if (whole !== undefined) {
        try {
          truncateSync(path, whole);
        } catch {
          // Nothing more to do: the line is dropped either way.
        }
      }
      size = undefined;
    }
  };
}
