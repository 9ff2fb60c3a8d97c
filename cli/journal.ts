import { fstatSync } from "node:fs";

/**
 * systemd.exec(5): JOURNAL_STREAM holds the device and inode of the stream systemd connected to
 * the journal. It is inherited by children whose stderr may go elsewhere, so stderr's own
 * device and inode must match before lines carry sd-daemon(3) priority prefixes.
 */
export function stderrIsJournal(env: NodeJS.ProcessEnv, fd = 2): boolean {
  const match = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? "");
  if (!match) return false;
  try {
    const stat = fstatSync(fd, { bigint: true });
    return stat.dev === BigInt(match[1]!) && stat.ino === BigInt(match[2]!);
  } catch {
    return false;
  }
}
