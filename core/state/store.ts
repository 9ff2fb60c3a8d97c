import { lstat, readdir, rename, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { Low } from "lowdb";
import { CorruptStoreError, DurableJsonFile } from "../fs/durable-json-file.ts";
import { ensurePrivateDir } from "../fs/private-dir.ts";
import { storageError } from "../fs/storage-error.ts";
import { isTempFile, stateLayout } from "./layout.ts";
import type { StoreData } from "./records.ts";
import { storeShapeProblem } from "./store-shape.ts";

function emptyStore(): StoreData {
  return {
    schemaVersion: 1,
    draft: { source: "structured", config: {}, revision: 0, updatedAt: null },
    attempts: [],
    lockout: { addresses: {}, globalFailures: [] },
  };
}

/**
 * One service's part of the store document. `set` and changes to what `get` returns are memory;
 * `save()` writes the whole document, durable and serialised: every slice as memory holds it, but the attempts as
 * their own last save left them. A write the state dir cannot take
 * rejects with INSUFFICIENT_STORAGE, and the caller restores its memory.
 */
export interface Slice<T> {
  get(): T;
  set(value: T): void;
  save(): Promise<void>;
}

/** The small state document, handed out a slice a service. */
export interface Store {
  slice<K extends keyof StoreData>(key: K): Slice<StoreData[K]>;
}

export interface OpenedStore {
  store: Store;
  /** True when no store file existed: this is the state dir's first start. */
  firstStart: boolean;
  /** Where an unreadable store file was kept aside, when it was. */
  keptAside?: string;
  /** Why it was kept aside: what the parser said, or what is not of the store's shape. */
  keptAsideWhy?: string;
  /** Temp files of interrupted writes that were removed. */
  cleanedTempFiles: string[];
}

/**
 * `cleaned`: what removeInterruptedWrites returned to a caller that ran it before this and its own writes (a start
 * makes its install code and TLS pair alongside); else this runs it first.
 */
export async function openStore(stateDir: string, now: () => Date, { cleaned }: { cleaned?: string[] } = {}): Promise<OpenedStore> {
  await ensurePrivateDir(stateDir);
  const cleanedTempFiles = cleaned ?? (await removeInterruptedWrites(stateDir));
  const layout = stateLayout(stateDir);
  const path = layout.store;
  const adapter = new DurableJsonFile<StoreData>(path);
  const low = new Low<StoreData>(adapter, emptyStore());
  let keptAside: string | undefined;
  let keptAsideWhy: string | undefined;
  let firstStart = false;
  try {
    const data = await adapter.read();
    const problem = data === null ? undefined : storeShapeProblem(data);
    if (data === null) firstStart = true;
    else if (problem === undefined) low.data = withDefaults(data as Partial<StoreData>);
    else throw new CorruptStoreError(path, new Error(`it is not an installer store document: ${problem}`));
  } catch (err) {
    if (!(err instanceof CorruptStoreError)) throw err;
    keptAsideWhy = err.why;
    // Never over an earlier one (SPEC §2: never deleted): a clock that starts at the same time each boot names it alike.
    // The state dir's lock is held: nobody else names one meanwhile.
    const at = now();
    keptAside = layout.storeAside(at);
    for (let nth = 1; await lstat(keptAside).then(() => true, (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? false : Promise.reject(e))); nth += 1) {
      keptAside = layout.storeAside(at, nth);
    }
    await rename(path, keptAside);
  }
  if (firstStart || keptAside) await low.write();
  // The attempts are written as their own last save left them. The runner saves an attempt's record once the
  // attempt's events are on disk (its verdict after attempt.finished): another slice's save, written with the attempts
  // as memory holds them, could put a verdict on disk ahead of its events, and a kill then left a finished record
  // whose events never finish.
  let savedAttempts = structuredClone(low.data.attempts);
  // The attempts of the last of their saves that reached the disk. Writes are serialised: when one fails, every save
  // asked before it has ended, so this is what the disk holds, never the memory of another save that failed too.
  let writtenAttempts = savedAttempts;
  const write = () => adapter.write({ ...low.data, attempts: savedAttempts }).catch((err: unknown) => Promise.reject(storageError(stateDir, err)));
  const saveAttempts = async () => {
    const these = (savedAttempts = structuredClone(low.data.attempts));
    try {
      await write();
      writtenAttempts = these;
    } catch (err) {
      // Memory is the caller's to restore (an attempt that could not start is taken back): so is this.
      if (savedAttempts === these) savedAttempts = writtenAttempts;
      throw err;
    }
  };
  const store: Store = {
    slice: (key) => ({
      get: () => low.data[key],
      set: (value) => {
        low.data[key] = value;
      },
      save: key === "attempts" ? saveAttempts : write,
    }),
  };
  return { store, firstStart, keptAside, keptAsideWhy, cleanedTempFiles };
}


function withDefaults(data: Partial<StoreData>): StoreData {
  const empty = emptyStore();
  return { ...empty, ...data, lockout: { ...empty.lockout, ...data.lockout } };
}

/**
 * The temp files interrupted writes left in the state dir (SPEC §2: cleaned at start), removed; their names. Run before
 * any write of the start: a temp file of its own, listed while it is written, would be taken for one.
 */
export async function removeInterruptedWrites(stateDir: string): Promise<string[]> {
  const olderCodeCacheTemp = basename(stateLayout(stateDir).olderCodeCacheTemp);
  // Files alone: a folder of that name is no write's (rm would refuse it, and stop the start).
  const names = (await readdir(stateDir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && (isTempFile(entry.name) || entry.name === olderCodeCacheTemp))
    .map((entry) => entry.name);
  await Promise.all(names.map((name) => rm(join(stateDir, name), { force: true })));
  return names;
}
