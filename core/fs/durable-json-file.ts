import { rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { Adapter } from "lowdb";
import { jsonProblem } from "../common/json-syntax.ts";
import { readTextFile, TextFileProblem } from "./read-text-file.ts";
import { syncFolder, writeTempFile } from "./write-private-file.ts";
import { tempPathOf } from "../state/layout.ts";

export class CorruptStoreError extends Error {
  /** Why, in a few words: the parser's message, or what is not of the store's shape. */
  readonly why: string;
  constructor(readonly path: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${path} does not parse: ${why}`);
    this.why = why;
    this.name = "CorruptStoreError";
  }
}

/** Far above what a store holds (its attempts' output is capped): more is not the installer's. */
const MAX_STORE_BYTES = 64 * 1024 * 1024;

/**
 * lowdb adapter that survives kill -9 and power loss: write a temp file, fsync it,
 * rename over the target, fsync the folder. Writes are serialised; each write
 * snapshots the data when it is queued.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  #queue: Promise<void> = Promise.resolve();
  readonly tempPath: string;

  constructor(readonly path: string) {
    this.tempPath = tempPathOf(path);
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      // Not waited on, nor read without end: a path that is a named pipe, a device or a folder (through a link) is no store.
      text = await readTextFile(this.path, MAX_STORE_BYTES, { lenient: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      if (err instanceof TextFileProblem) throw new CorruptStoreError(this.path, new Error(`it ${err.reason}`));
      throw err;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      // Not V8's message: it quotes the text around the fault, and this message goes to the banner, the log and bundles.
      throw new CorruptStoreError(this.path, new Error(jsonProblem(text)));
    }
  }

  write(data: T): Promise<void> {
    const text = JSON.stringify(data);
    const next = this.#queue.then(() => this.#writeNow(text));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #writeNow(text: string): Promise<void> {
    try {
      await writeTempFile(this.tempPath, text);
      await rename(this.tempPath, this.path);
    } catch (err) {
      // A half-written temp file on a full disk would hold the space the next write needs.
      await rm(this.tempPath, { force: true }).catch(() => undefined);
      throw err;
    }
    await syncFolder(dirname(this.path));
  }
}
