import { open } from "node:fs/promises";

/**
 * Writes a file only its owner may read (0600) and fsyncs it. The mode is set on the open file too:
 * open's mode passes through the umask and leaves a file that already exists as it was.
 * `exclusive`: fail with EEXIST rather than overwrite. `sync: false`: no fsync, for a file that means nothing after a
 * power cut. `mode: 0o644`: others may read it (only its owner ever writes it).
 */
export async function writePrivateFile(path: string, data: string | Uint8Array, { exclusive = false, sync = true, mode = 0o600 as 0o600 | 0o644 } = {}): Promise<void> {
  const file = await open(path, exclusive ? "wx" : "w", mode);
  try {
    await file.writeFile(data);
    await file.chmod(mode);
    if (sync) await file.sync();
  } finally {
    await file.close();
  }
}

/** Makes a rename or a new name in the folder survive power loss. */
export async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
