/**
 * What keeps --version, code and the first request fast, in its two halves. The bundle is one file in two parts:
 * the front (installer.ts), then the commands' code (cli/main.ts) with each line behind `//`, which V8 skims as
 * comments when it compiles the front (compiling all of it cost --version ≈ 2.5× `node -e 0`). The build-time half
 * lays the two parts out; the run-time half compiles the commands' code when a command needs it, for `serve` with
 * V8's code cache from the state dir, or else from beside the bundle (`installer.js prepare-image`, made for an image).
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync, renameSync, rmSync, statSync, statfsSync, writeFileSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { Script, type ScriptOptions } from "node:vm";

/** The line between the two parts. */
export const MAIN_MARK = "\n//# stratum-installer: the commands' code\n";
/** The front's size at most (it is ≈ 12 KB). */
const FRONT_MAX_BYTES = 64 * 1024;
import { stateLayout, tempPathOf } from "../core/state/layout.ts";

// Build time: build/build.ts lays the bundle out.

/** The bundle: the front, the mark, then the commands' code with every line commented out. */
export function layOutBundle(front: string, commands: string): string {
  // A character that ends a line comment other than \n would end the comment early; the mark must be the last one.
  if (/[\r\u2028\u2029]/.test(commands)) throw new Error("cli/main.ts's bundle has a line break other than \\n: it cannot be kept as line comments");
  const bundle = `${front}${MAIN_MARK}${commands.replace(/^/gm, "//")}`;
  if (bundle.lastIndexOf(MAIN_MARK) !== front.length) throw new Error("the commands' code contains the front's mark");
  if (front.length >= FRONT_MAX_BYTES) throw new Error(`the front is ${front.length} bytes: the mark is looked for in the first ${FRONT_MAX_BYTES}`);
  return bundle;
}

// Run time: the bundle's front (installer.ts) loads the commands' code.

export interface CodeCache {
  /** What this start did with the state dir's cache: compiled from it, refused it (another bundle, Node or flags, or a damaged file), or had none. */
  readonly state: "used" | "rejected" | "absent";
  /** Whose cache was used: the state dir's, or the one beside the bundle (made for an image by `installer.js prepare-image`). */
  readonly from?: "state dir" | "bundle";
  /** Why an existing cache could not be read. */
  readonly unreadable?: string;
  /** The cache beside the bundle, when it is there and was made for another bundle, Node or flags (or V8 refused it). */
  readonly outdatedImage?: string;
  /** When the commands' code had been compiled and run, in ms since the process began (`performance.now()`). */
  readonly compiledAt: number;
  /** Writes a new cache unless this one was used: called once the first requests are over, so it holds their code too. */
  save(): Promise<void>;
}

/** Compiles and runs the commands' code (cli/main.ts); with a state dir, from (and later into) its code cache. */
export function loadCommands<Commands>(stateDir: string | undefined): { commands: Commands; codeCache: CodeCache | undefined } {
  const { source, bytes, lineOffset } = commandsSource(readFileSync(__filename));
  const options = { filename: __filename, lineOffset };
  const { script, codeCache } = stateDir === undefined ? { script: new Script(source, options), codeCache: undefined } : compileWithCodeCache(source, bytes, options, stateDir);
  const module = { exports: {} as Commands };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, __filename, __dirname);
  return { commands: module.exports, codeCache: codeCache && { ...codeCache, compiledAt: performance.now() } };
}

const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";
const WRAPPER_TAIL = "\n})";
const NEWLINE = 0x0a;

/**
 * The commands' code as a function's source, and that source's bytes. Read as bytes and uncommented line by line in
 * one buffer, which becomes a string once: the code is ≈ 700 KB, and every copy of it as a string (a decode, a
 * replace, a concatenation V8 flattens) cost a first start milliseconds (bench/RESULTS.md).
 */
export function commandsSource(bundle: Buffer): { source: string; bytes: Buffer; lineOffset: number } {
  // Looked for back from the front's end (the front spells the mark too): not through the commands' ≈ 700 KB.
  const at = bundle.lastIndexOf(MAIN_MARK, FRONT_MAX_BYTES);
  if (at < 0) throw new Error("it is not a whole installer bundle: the commands' code is missing");
  const bytes = Buffer.allocUnsafe(WRAPPER_HEAD.length + (bundle.length - at) + WRAPPER_TAIL.length);
  let length = bytes.write(WRAPPER_HEAD, "latin1");
  // From the newline that ends the mark: each line is "\n//" and the code's own line.
  for (let line = at + MAIN_MARK.length - 1; line < bundle.length; ) {
    const next = bundle.indexOf(NEWLINE, line + 1);
    const end = next < 0 ? bundle.length : next;
    bytes[length++] = NEWLINE;
    const code = bundle[line + 1] === 0x2f && bundle[line + 2] === 0x2f ? line + 3 : line + 1;
    length += bundle.copy(bytes, length, code, end);
    line = end;
  }
  length += bytes.write(WRAPPER_TAIL, length, "latin1");
  const source = bytes.toString("utf8", 0, length);
  // The code's first line is the source's second (after the wrapper's head): the bundle's line (0-based) after the mark.
  let markEnd = 0;
  for (let i = bundle.indexOf(NEWLINE); i >= 0 && i < at + MAIN_MARK.length; i = bundle.indexOf(NEWLINE, i + 1)) markEnd++;
  return { source, bytes: bytes.subarray(0, length), lineOffset: markEnd - 1 };
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** `<key> <sha256 of V8's data>\n`, then the data: V8 checks only the source's length, not its text, nor the data's checksum. */
const header = (key: string, data: Uint8Array) => Buffer.from(`${key} ${sha256(data)}\n`, "latin1");
const HEADER_BYTES = 64 + 1 + 64 + 1;

/**
 * Compiled code runs as this service: only a file this user alone can write, in a folder only it can write, is trusted;
 * beside the bundle, root's too (an image's files are root's, its service may run as another user).
 */
function untrusted(what: string, stats: Stats, rootToo: boolean): string | undefined {
  if (process.getuid && stats.uid !== process.getuid() && !(rootToo && stats.uid === 0)) return `${what} belongs to uid ${stats.uid}, not this service's`;
  if (stats.mode & 0o022) return `${what} is writable by others (mode ${(stats.mode & 0o7777).toString(8)})`;
  return undefined;
}

class Untrusted extends Error {}

/** The cache made for an image, beside the bundle: an image's state dir starts empty at every boot. */
export const codeCacheBeside = (bundle: string) => `${bundle}.code-cache`;

/** Why a start would not trust a cache beside `bundle` because of its folder; undefined when it would. */
export const bundleFolderRefusal = (bundle: string): string | undefined => untrusted("the bundle's folder", statSync(dirname(bundle)), true);

function readTrusted(file: string, folder: string, folderName: string, rootToo: boolean): Buffer {
  const fd = openSync(file, "r");
  try {
    const refused = untrusted(folderName, statSync(folder), rootToo) ?? untrusted(file, fstatSync(fd), rootToo);
    if (refused) throw new Untrusted(refused);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Compiles `source` with V8's code cache from `stateDir` (`vm.Script` `cachedData`: Node 20 has no
 * `module.enableCompileCache`). The cache is keyed by the source, Node's version and flags; one that is missing,
 * unreadable, damaged or another's is no error: the source is compiled as without one.
 */
/** Room the cache leaves free in the state dir for the store and the event logs. */
const SPARE_BYTES = 16 * 1024 * 1024;

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "");

function compileWithCodeCache(source: string, bytes: Buffer, options: ScriptOptions, stateDir: string): { script: Script; codeCache: Omit<CodeCache, "compiledAt"> } {
  const file = stateLayout(stateDir).codeCache;
  // Hashed only when a cache is read or written: a first start (no cache) does not wait for it before its first reply.
  let key: string | undefined;
  // Of the source's bytes: hashing the string would encode its ≈ 700 KB to UTF-8 first.
  const keyOf = () =>
    (key ??= createHash("sha256")
      .update(bytes)
      .update(["", process.version, process.arch, process.execArgv.join(" "), process.env.NODE_OPTIONS ?? ""].join("\0"))
      .digest("hex"));
  const unreadable: string[] = [];
  let seen = false;
  /** The cache's data when it is there, trusted and this source's, Node's and flags'. */
  const usable = (path: string, folder: string, folderName: string, rootToo = false): Buffer | undefined => {
    let found: Buffer;
    try {
      found = readTrusted(path, folder, folderName, rootToo);
    } catch (err) {
      seen ||= err instanceof Untrusted;
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") unreadable.push((err as Error).message);
      return undefined;
    }
    seen = true;
    const data = found.subarray(HEADER_BYTES);
    return found.subarray(0, HEADER_BYTES).equals(header(keyOf(), data)) ? data : undefined;
  };
  const own = usable(file, stateDir, "the state dir");
  // The state dir has a cache this start cannot use (an older bundle's, another Node's, a damaged one).
  const ownOutdated = !own && seen;
  const seenOwn = seen;
  seen = false;
  const imageFile = codeCacheBeside(__filename);
  const unreadableOwn = unreadable.length;
  const image = own ? undefined : usable(imageFile, dirname(__filename), "the bundle's folder", true);
  const seenImage = seen;
  // The image's own read failed (its warning says why): the state dir's failing does not hide its being outdated.
  const imageUnreadable = unreadable.length > unreadableOwn;
  seen ||= seenOwn;
  const cachedData = own ?? image;
  const script = new Script(source, { ...options, cachedData });
  const state = cachedData && !script.cachedDataRejected ? "used" : seen ? "rejected" : "absent";
  // Found, trusted, and not this start's (its header another key's, or V8 refused its data): every start pays until it is made again.
  const outdatedImage = !own && seenImage && state !== "used" && !imageUnreadable ? imageFile : undefined;
  return {
    script,
    codeCache: {
      state,
      ...(state === "used" ? { from: own ? "state dir" : "bundle" } : {}),
      unreadable: unreadable.length > 0 ? unreadable.join("; ") : undefined,
      ...(outdatedImage ? { outdatedImage } : {}),
      async save() {
        if (state === "used") {
          // The image's served this start: the state dir's outdated one would be read and hashed at every start for nothing.
          if (image && ownOutdated) rmSync(file, { force: true });
          return;
        }
        const data = script.createCachedData();
        const bytes = Buffer.concat([header(keyOf(), data), data]);
        const { bavail, bsize } = statfsSync(stateDir);
        if (bavail * bsize < bytes.length + SPARE_BYTES) {
          throw new Error(`only ${mib(bavail * bsize)} MiB free in the state dir; the cache needs ${mib(bytes.length)} MiB and leaves room for the store and the event logs`);
        }
        // In one go, without fsync (a torn cache fails its header check): the file is open for milliseconds, never
        // across a stop or an operator's remount, and a failed write leaves no temp file holding space.
        const temp = tempPathOf(file);
        try {
          writeFileSync(temp, bytes, { mode: 0o600 });
          renameSync(temp, file);
        } catch (err) {
          rmSync(temp, { force: true });
          throw err;
        }
      },
    },
  };
}
