import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { namingFile, notWrittenBecause } from "../fs/storage-error.ts";
import { storeShapeProblem } from "../state/store-shape.ts";
import { join } from "node:path";
import { jsonProblem } from "../common/json-syntax.ts";
import { stateLayout } from "../state/layout.ts";
import type { StoreData } from "../state/records.ts";

/** A file read no further than a cap: its first bytes, and whether there was more. */
interface CappedText {
  text: string;
  size: number;
  cut: boolean;
  /** The path is no file (then `text` is empty): what it is, "a named pipe" say. */
  notAFile?: string;
  /** With `orUnreadable`: why it could not be read (then `text` is empty), "EACCES: permission denied" say. */
  unreadable?: string;
}

/** What the bundle reads of the state dir, read only: no lock, no write. */
export interface StateSnapshot {
  stateDir: string;
  /** The store document; undefined before the first start, or when it does not parse (then `storeProblem`). */
  store?: StoreData;
  storeProblem?: string;
  /** The store file as found, when it did not parse. */
  storeRaw?: CappedText;
  /** Stores kept aside as corrupt, by file name, newest first; one that is no file with `notAFile` (the bundle names it as left out). */
  asides: Array<{ name: string } & CappedText>;
  /** How many more stores kept aside there are, older than those (by name), not read. */
  olderAsides?: number;
  installCode?: string;
  tlsKey?: string;
  /** The node.yaml files the attempts wrote, as they are now: read for their secrets alone, never bundled. */
  writtenNodeYamls: string[];
  /** Files outside the state dir whose secrets the bundle redacts that could not be read: each file and why. */
  unreadSecretFiles: string[];
}

export const MAX_ASIDES = 3;
const ASIDE_CAP = 1024 * 1024;
/** An install code is a line, a TLS key a few kilobytes: no more of either file is read. */
export const SECRET_CAP = 1024 * 1024;

/** What a path that cannot be opened as a file is, by open's error: each of these is a state dir's damage, not a reason for no bundle. */
const NOT_OPENED: Record<string, string> = { ELOOP: "a link that loops", ENXIO: "a socket" };

/**
 * A file whose text the bundle holds is read only when it is the state dir's own (`noLink`): a link in its place, to
 * /etc/shadow say, planted by whoever may write there, is not followed by a bundle made as root.
 */
export const A_LINK = "a link (not followed: the service makes none there)";

/**
 * A path's first `cap` bytes (its last, from a line's start, with `tail`: a log's newest lines); not waited on, nor
 * read, when it is no file (a named pipe would hang the read). `orUnreadable`, for a file the bundle holds but needs
 * no secret from (a log, the notices, a store kept aside): one this user may not read (0600, root's) or that fails
 * to read (an I/O error) is said so, left out, where it failed the whole bundle.
 */
export async function readCapped(path: string, cap: number, options: { tail?: boolean; noLink?: boolean; orUnreadable?: boolean } = {}): Promise<CappedText | undefined> {
  if (!options.orUnreadable) return readCappedOrFail(path, cap, options);
  return readCappedOrFail(path, cap, options).catch((err: NodeJS.ErrnoException) => {
    if (typeof err?.code !== "string") throw err;
    return { text: "", size: 0, cut: false, unreadable: notWrittenBecause(err) };
  });
}

async function readCappedOrFail(path: string, cap: number, options: { tail?: boolean; noLink?: boolean }): Promise<CappedText | undefined> {
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.noLink ? constants.O_NOFOLLOW : 0)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    const notAFile = options.noLink && err.code === "ELOOP" ? A_LINK : NOT_OPENED[err.code ?? ""];
    return notAFile ? notAFile : Promise.reject(err);
  });
  if (!file) return undefined;
  if (typeof file === "string") return { text: "", size: 0, cut: false, notAFile: file };
  try {
    const stats = await file.stat();
    if (!stats.isFile()) return { text: "", size: 0, cut: false, notAFile: stats.isDirectory() ? "a folder" : stats.isFIFO() ? "a named pipe" : "a device or socket" };
    const { size } = stats;
    const buffer = Buffer.alloc(Math.min(size, cap));
    const from = options.tail ? size - buffer.length : 0;
    const { bytesRead } = await file.read(buffer, 0, buffer.length, from);
    let read = buffer.subarray(0, bytesRead);
    // Cut at its front: from the first whole line on, so that no half line (half a secret) is kept.
    if (from > 0) read = read.subarray(read.indexOf(10) + 1);
    return { text: read.toString("utf8"), size, cut: size > cap };
  } catch (err) {
    throw namingFile(path, err);
  } finally {
    await file.close();
  }
}

/** `store`: a running service's own records, which may be ahead of the file; the CLI reads the file. */
export async function readState(stateDir: string, store?: StoreData): Promise<StateSnapshot> {
  const layout = stateLayout(stateDir);
  const snapshot: StateSnapshot = { stateDir, asides: [], store, writtenNodeYamls: [], unreadSecretFiles: [] };
  const raw = store ? undefined : await readCapped(layout.store, 64 * 1024 * 1024, { noLink: true });
  if (raw?.notAFile) snapshot.storeProblem = `the store file is ${raw.notAFile}, not a file`;
  else if (raw) {
    try {
      let data: StoreData;
      try {
        data = JSON.parse(raw.text) as StoreData;
      } catch {
        throw new Error(jsonProblem(raw.text));
      }
      const problem = storeShapeProblem(data);
      if (problem !== undefined || !Array.isArray(data.attempts)) throw new Error(`not an installer store document${problem ? `: ${problem}` : ""}`);
      snapshot.store = data;
    } catch (err) {
      snapshot.storeProblem = `the store file does not parse (${(err as Error).message})`;
      snapshot.storeRaw = { ...raw, text: raw.text.slice(0, ASIDE_CAP), cut: raw.cut || raw.text.length > ASIDE_CAP };
    }
  }
  const all = (await readdir(stateDir).catch(() => [] as string[])).filter(layout.isStoreAside).sort().reverse();
  snapshot.olderAsides = all.length - Math.min(all.length, MAX_ASIDES);
  for (const name of all.slice(0, MAX_ASIDES)) {
    const text = await readCapped(join(stateDir, name), ASIDE_CAP, { noLink: true, orUnreadable: true });
    if (text) snapshot.asides.push({ name, ...text });
  }
  // Read as the store is: a named pipe or a link to a device in their place would hang the bundle or read without end.
  const code = await readCapped(layout.installCode, SECRET_CAP);
  snapshot.installCode = code && !code.notAFile ? code.text.trim() : undefined;
  const key = await readCapped(layout.tlsKey, SECRET_CAP);
  snapshot.tlsKey = key && !key.notAFile ? key.text : undefined;
  // Firstboot printed the secrets of the node.yaml its attempt wrote, which the draft may no longer hold (a hash
  // changed after a failed attempt): the bundle redacts those too.
  // One that cannot be read is said (a later attempt's writing over it, or its removal, is not: that is the file's life).
  const written = new Map<string, number>();
  for (const { attempt, nodeYamlPath } of snapshot.store?.attempts ?? []) if (typeof nodeYamlPath === "string") written.set(nodeYamlPath, attempt);
  for (const [path, attempt] of written) {
    const file = await readCapped(path, SECRET_CAP).catch((err: NodeJS.ErrnoException) => ({ failed: notWrittenBecause(err) }));
    const whose = `${path} (the node.yaml attempt ${attempt} wrote)`;
    if (file === undefined) continue;
    if ("failed" in file) snapshot.unreadSecretFiles.push(`${whose} cannot be read (${file.failed})`);
    else if (file.notAFile) snapshot.unreadSecretFiles.push(`${whose} is ${file.notAFile}, not a file`);
    else snapshot.writtenNodeYamls.push(file.text);
  }
  return snapshot;
}
