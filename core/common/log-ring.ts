import { closeSync, fstatSync, openSync, renameSync, writeSync } from "node:fs";

/** Each file of the ring: the two together hold the last 1 MB of lines. */
const HALF = 512 * 1024;

/**
 * Appends log lines to `path`, moving it to `older` once it holds half the cap: the service's recent lines stay in
 * the state dir, bounded, for a support bundle made while the service is down. A line the disk cannot take is
 * dropped: the log must never stop the service.
 */
export function createLogRing(path: string, older: string): (line: string) => void {
  let fd: number | undefined;
  let size = 0;
  const open = () => {
    fd = openSync(path, "a", 0o600);
    size = fstatSync(fd).size;
  };
  return (line) => {
    try {
      if (fd === undefined) open();
      if (size >= HALF) {
        closeSync(fd!);
        renameSync(path, older);
        open();
      }
      size += writeSync(fd!, line);
    } catch {
      const broken = fd;
      fd = undefined;
      if (broken !== undefined) closeQuietly(broken);
    }
  };
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already unusable: the next line opens the file again.
  }
}
