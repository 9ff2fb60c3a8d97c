import { watch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Blocker } from "../errors.ts";
import type { Logger } from "../log.ts";
import { BUILT_IN_RELEASE, type ReleaseModel } from "../release.ts";
import { hashFiles } from "./hash-files.ts";
import { RELEASE_FILE, readReleaseFile, type ReleaseFile } from "./release-file.ts";

export type PayloadState =
  | { kind: "not-loaded"; detail: string }
  | { kind: "settling"; release?: ReleaseFile }
  | { kind: "verifying"; release: ReleaseFile; doneBytes: number; totalBytes: number; file?: string }
  | { kind: "invalid"; release?: ReleaseFile; detail: string }
  | { kind: "ready"; release: ReleaseFile };

export interface PayloadOptions {
  folder: string;
  log: Logger;
  /** How often the folder is looked at besides fs.watch (which misses changes on some filesystems). */
  pollMs?: number;
  /** A change is judged only once nothing has changed for this long: a payload copied in slowly is not judged half-way. */
  settleMs?: number;
}

function gib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

export class PayloadManager {
  #state: PayloadState = { kind: "settling" };
  #judged: string | undefined;
  #seen: string | undefined;
  #seenSince = 0;
  #cancel: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #watcher: FSWatcher | undefined;
  #listeners: ((state: PayloadState) => void)[] = [];
  #checking = false;
  readonly #pollMs: number;
  readonly #settleMs: number;

  constructor(private readonly options: PayloadOptions) {
    this.#pollMs = options.pollMs ?? 1000;
    this.#settleMs = options.settleMs ?? 1000;
  }

  get state(): PayloadState {
    return this.#state;
  }

  get folder(): string {
    return this.options.folder;
  }

  onChange(listener: (state: PayloadState) => void): void {
    this.#listeners.push(listener);
  }

  /** Judges the folder at once (the release model is known before the first request), then watches it. */
  async start(): Promise<void> {
    await this.#judge();
    this.#timer = setInterval(() => void this.#check(), this.#pollMs);
    this.#timer.unref();
    this.#watch();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#watcher?.close();
    await this.#cancel?.();
  }

  release(): ReleaseModel {
    return "release" in this.#state && this.#state.release ? this.#state.release.model : BUILT_IN_RELEASE;
  }

  blockers(): Blocker[] {
    const state = this.#state;
    switch (state.kind) {
      case "ready":
        return [];
      case "not-loaded":
        return [{ code: "PAYLOAD_NOT_LOADED", detail: state.detail }];
      case "invalid":
        return [{ code: "PAYLOAD_INVALID", detail: state.detail }];
      case "settling":
        return [{ code: "PAYLOAD_VERIFYING", detail: `The payload in ${this.folder} is changing (being copied?); it is checked once it has stopped changing. The install can start when the check passes.` }];
      case "verifying": {
        const percent = state.totalBytes ? Math.floor((state.doneBytes / state.totalBytes) * 100) : 100;
        return [
          {
            code: "PAYLOAD_VERIFYING",
            detail: `Checking the payload's checksums: ${gib(state.doneBytes)} of ${gib(state.totalBytes)} (${percent}%)${state.file ? `, now ${state.file}` : ""}. The install can start when it is done.`,
          },
        ];
      }
    }
  }

  #set(state: PayloadState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener(state);
  }

  #watch(): void {
    try {
      this.#watcher = watch(this.folder, { recursive: true, persistent: false }, () => void this.#check());
      this.#watcher.on("error", () => {
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch {
      // No folder yet, or no watch support: the poll sees it.
    }
  }

  /** Judges the folder once its signature has been still for settleMs. */
  async #check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      if (!this.#watcher) this.#watch();
      const signature = await this.#signature();
      if (signature !== this.#seen) {
        this.#seen = signature;
        this.#seenSince = Date.now();
        if (signature !== this.#judged && this.#state.kind !== "settling") {
          await this.#cancel?.();
          this.#cancel = undefined;
          this.#set({ kind: "settling", release: "release" in this.#state ? this.#state.release : undefined });
        }
        return;
      }
      if (signature === this.#judged || Date.now() - this.#seenSince < this.#settleMs) return;
      await this.#judge();
    } finally {
      this.#checking = false;
    }
  }

  /** Reads release.yaml and checks sizes, then starts the checksum run and returns; its end sets the state. */
  async #judge(): Promise<void> {
    const loaded = await this.#readRelease();
    if (loaded.kind !== "ready") {
      this.#judged = this.#seen = await this.#signature(undefined);
      return this.#set(loaded);
    }
    const { release } = loaded;
    this.#judged = this.#seen = await this.#signature(release);
    for (const image of release.images) {
      const found = await stat(join(this.folder, image.file)).catch(() => undefined);
      if (!found?.isFile()) {
        return this.#set({ kind: "invalid", release, detail: `${image.file} is missing from ${this.folder} (release.yaml lists it): copy the whole payload again.` });
      }
      if (found.size !== image.size) {
        return this.#set({
          kind: "invalid",
          release,
          detail: `${image.file} is ${found.size} bytes, release.yaml says ${image.size}: the copy is incomplete or from another release; copy it again.`,
        });
      }
    }
    const totalBytes = release.images.reduce((sum, image) => sum + image.size, 0);
    let doneBytes = 0;
    const mismatches: string[] = [];
    this.#set({ kind: "verifying", release, doneBytes, totalBytes });
    const started = Date.now();
    const run = hashFiles(
      release.images.map((image) => ({ file: image.file, path: join(this.folder, image.file) })),
      (message) => {
        if (message.type === "progress") {
          doneBytes += message.bytes;
          this.#state = { kind: "verifying", release, doneBytes, totalBytes, file: message.file };
          return;
        }
        const expected = release.images.find((image) => image.file === message.file)!.sha256.toLowerCase();
        if (message.type === "error") mismatches.push(`${message.file} cannot be read: ${message.message}`);
        else if (message.sha256 !== expected) mismatches.push(`${message.file}: sha256 is ${message.sha256}, release.yaml says ${expected}`);
      },
    );
    this.#cancel = run.cancel;
    void run.done.then(
      () => this.#finishRun(run.cancel, release, mismatches, totalBytes, started),
      (err: unknown) => this.#finishRun(run.cancel, release, [`the checksum run failed: ${(err as Error).message}`], totalBytes, started),
    );
  }

  #finishRun(cancel: () => Promise<void>, release: ReleaseFile, mismatches: string[], totalBytes: number, started: number): void {
    if (this.#cancel !== cancel) return;
    this.#cancel = undefined;
    if (mismatches.length > 0) {
      return this.#set({ kind: "invalid", release, detail: `${mismatches.join("; ")}. The file is damaged or from another release: copy it again.` });
    }
    this.options.log.info("payload verified", { release: release.model.release, bytes: totalBytes, ms: Date.now() - started });
    this.#set({ kind: "ready", release });
  }

  async #readRelease(): Promise<{ kind: "ready"; release: ReleaseFile } | Extract<PayloadState, { kind: "not-loaded" }>> {
    const read = await readReleaseFile(this.folder);
    const path = join(this.folder, RELEASE_FILE);
    switch (read.kind) {
      case "ready":
        return read;
      case "missing":
        return {
          kind: "not-loaded",
          detail: `No ${RELEASE_FILE} in ${this.folder}: copy the offline payload (release.yaml and the images it lists) there, or start the installer with --payload pointing at it. It is picked up without a restart.`,
        };
      case "unreadable":
        return { kind: "not-loaded", detail: `${path} cannot be read (${read.problem}): check its permissions.` };
      case "invalid":
        return { kind: "not-loaded", detail: `${path} is not a valid release file: ${read.problem}. Copy the payload's release.yaml again.` };
    }
  }

  /** Sizes and times of release.yaml and the files it lists: what changes while a payload is copied in. */
  async #signature(release: ReleaseFile | undefined = "release" in this.#state ? this.#state.release : undefined): Promise<string> {
    const names = [RELEASE_FILE, ...(release?.images.map((i) => i.file) ?? [])];
    const stats = await Promise.all(
      names.map(async (name) => {
        const s = await stat(join(this.folder, name)).catch(() => undefined);
        return s ? `${name}:${s.size}:${s.mtimeMs}:${s.ino}` : `${name}:-`;
      }),
    );
    return stats.join("|");
  }
}
