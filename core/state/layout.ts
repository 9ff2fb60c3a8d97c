import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

/** Every file the installer keeps in its state dir (--state-dir), named here once: the rest asks for paths. */
export interface StateLayout {
  dir: string;
  /** The store document (lowdb JSON): draft, attempts, lockout, unattended, cluster. */
  store: string;
  /** Where an unreadable store file is kept aside when it is found, at `at`; `nth` (from 1) when that name is taken. */
  storeAside(at: Date, nth?: number): string;
  installCode: string;
  /** The self-signed pair generated at the first start when the operator gives none. */
  tlsCert: string;
  tlsKey: string;
  /** One installer per state dir: it names the holder. */
  lock: string;
  /** One JSON-lines file an attempt. */
  events: string;
  eventsOf(attempt: number): string;
  /** The folders the installer makes in it, each checked at start as the state dir is (ensurePrivateDirInside): what it is, what it holds. */
  folders: Array<{ path: string; what: string; holds: string }>;
  /** V8's code cache of the bundle: a faster next start. */
  codeCache: string;
  /**
   * The temp file installers of 2026-12-03/04 wrote their code cache through (not `tempPathOf`'s name): one a stop or a
   * kill interrupted stays beside the cache (≈ 1 MB), so a start removes it with the other interrupted writes.
   */
  olderCodeCacheTemp: string;
  /** The service's own log lines, newest last: a ring of two files (the older one `serviceLogOlder`) under 1 MB together. */
  serviceLog: string;
  serviceLogOlder: string;
  /** The notices of the last start (lock taken over, store kept aside, temp files cleaned), as JSON. */
  lastStart: string;
  /** The stores kept aside (`storeAside`) among the state dir's file names. */
  isStoreAside(name: string): boolean;
}

export function stateLayout(dir: string): StateLayout {
  const store = join(dir, "installer.json");
  const lock = join(dir, "installer.lock");
  const events = join(dir, "events");
  return {
    dir,
    store,
    storeAside: (at, nth = 0) => `${store}.corrupt-${at.toISOString().replace(/[:.]/g, "-")}${nth ? `-${nth}` : ""}`,
    installCode: join(dir, "install-code"),
    tlsCert: join(dir, "tls.crt"),
    tlsKey: join(dir, "tls.key"),
    lock,
    events,
    eventsOf: (attempt) => join(events, `attempt-${attempt}.jsonl`),
    folders: [{ path: events, what: "the state dir's events folder", holds: "its attempts' events" }],
    codeCache: join(dir, "code-cache"),
    olderCodeCacheTemp: join(dir, "code-cache.tmp"),
    serviceLog: join(dir, "service.log"),
    serviceLogOlder: join(dir, "service.log.1"),
    lastStart: join(dir, "last-start.json"),
    isStoreAside: (name) => name.startsWith(`${basename(store)}.corrupt-`),
  };
}

/**
 * The temp file a write to `path` goes through before it is renamed into place: hidden, beside it, this process's.
 * `unguessable`: with a random tag after the pid (`.NAME.PID.TAG.tmp`), for one made new (O_EXCL) in a folder others
 * may write to (a support bundle's -o): no one can plant a file in its place beforehand to refuse the write.
 */
export function tempPathOf(path: string, { unguessable = false } = {}): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}${unguessable ? `.${randomBytes(TAG_BYTES).toString("hex")}` : ""}.tmp`);
}

const TAG_BYTES = 6;
const TAG = `[0-9a-f]{${TAG_BYTES * 2}}`;
/** After `.NAME.`: the writer's pid, and an unguessable temp file's tag. */
const TEMP_TAIL = new RegExp(`^(\\d+)(?:\\.${TAG})?\\.tmp$`);
const TEMP_NAME = new RegExp(`^\\..+\\.\\d+(?:\\.${TAG})?\\.tmp$`);

/** When `name`, in `path`'s folder, is a temp file of a write to `path` (`tempPathOf`, any process's): the pid of the process that wrote it. */
export function writerOfTempFile(path: string, name: string): number | undefined {
  const prefix = `.${basename(path)}.`;
  const pid = name.startsWith(prefix) ? TEMP_TAIL.exec(name.slice(prefix.length))?.[1] : undefined;
  return pid === undefined ? undefined : Number(pid);
}

/** Where a file found in the way of a new one is kept aside, beside it, named by when (an event log a store forgot). */
export function keptAsidePathOf(path: string, at: Date): string {
  return `${path}.kept-${at.toISOString().replaceAll(":", "-")}`;
}

/** The name of a temp file (`tempPathOf`: `.NAME.PID.tmp`, `.NAME.PID.TAG.tmp`) an interrupted write left behind, any file's. */
export function isTempFile(name: string): boolean {
  return TEMP_NAME.test(name);
}
