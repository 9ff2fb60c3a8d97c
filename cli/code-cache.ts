import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from "node:fs";
import { rename } from "node:fs/promises";
import { Script, type ScriptOptions } from "node:vm";
import { writePrivateFile } from "../core/fs/write-private-file.ts";
import { stateLayout } from "../core/state/layout.ts";

export interface CodeCache {
  /** What this start did with the state dir's cache: compiled from it, refused it (another bundle, Node or flags, or a damaged file), or had none. */
  readonly state: "used" | "rejected" | "absent";
  /** Why an existing cache could not be read. */
  readonly unreadable?: string;
  /** Writes a new cache unless this one was used: called after the first request, so it holds that request's code too. */
  save(): Promise<void>;
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** `<key> <sha256 of V8's data>\n`, then the data: V8 checks only the source's length, not its text, nor the data's checksum. */
const header = (key: string, data: Uint8Array) => Buffer.from(`${key} ${sha256(data)}\n`, "latin1");
const HEADER_BYTES = 64 + 1 + 64 + 1;

/**
 * Compiles `source` with V8's code cache from `stateDir` (`vm.Script` `cachedData`: Node 20 has no
 * `module.enableCompileCache`). The cache is keyed by the source, Node's version and flags; one that is missing,
 * unreadable, damaged or another's is no error: the source is compiled as without one.
 */
/** Compiled code runs as this service: only a file this user alone can write, in a folder only it can write, is trusted. */
function untrusted(what: string, stats: Stats): string | undefined {
  if (process.getuid && stats.uid !== process.getuid()) return `${what} belongs to uid ${stats.uid}, not this service's`;
  if (stats.mode & 0o022) return `${what} is writable by others (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}

class Untrusted extends Error {}

function readTrusted(file: string, stateDir: string): Buffer {
  const fd = openSync(file, "r");
  try {
    const refused = untrusted("the state dir", statSync(stateDir)) ?? untrusted(file, fstatSync(fd));
    if (refused) throw new Untrusted(refused);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function compileWithCodeCache(source: string, options: ScriptOptions, stateDir: string): { script: Script; codeCache: CodeCache } {
  const file = stateLayout(stateDir).codeCache;
  const key = sha256([source, process.version, process.arch, process.execArgv.join(" "), process.env.NODE_OPTIONS ?? ""].join("\0"));
  let found: Buffer | undefined;
  let unreadable: string | undefined;
  let distrusted = false;
  try {
    found = readTrusted(file, stateDir);
  } catch (err) {
    distrusted = err instanceof Untrusted;
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") unreadable = (err as Error).message;
  }
  const data = found?.subarray(HEADER_BYTES);
  const cachedData = data && found!.subarray(0, HEADER_BYTES).equals(header(key, data)) ? data : undefined;
  const script = new Script(source, { ...options, cachedData });
  const state = distrusted ? "rejected" : found === undefined ? "absent" : cachedData && !script.cachedDataRejected ? "used" : "rejected";
  return {
    script,
    codeCache: {
      state,
      unreadable,
      async save() {
        if (state === "used") return;
        const data = script.createCachedData();
        const temp = `${file}.tmp`;
        await writePrivateFile(temp, Buffer.concat([header(key, data), data]));
        await rename(temp, file);
      },
    },
  };
}
