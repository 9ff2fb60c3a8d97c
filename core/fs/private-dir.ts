import { chmod, mkdir, stat } from "node:fs/promises";

/**
 * A folder only this user may enter (0700). mkdir's mode passes through the umask and leaves an existing folder
 * as it is, so a folder of ours that has other bits is chmod-ed; someone else's is left alone.
 */
export async function ensurePrivateDir(path: string): Promise<string> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  const { mode, uid } = await stat(path);
  if ((mode & 0o777) !== 0o700 && uid === process.getuid?.()) await chmod(path, 0o700);
  return path;
}
