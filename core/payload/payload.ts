import type { Blocker } from "../common/errors.ts";
import type { Logger } from "../common/log.ts";
import type { ReleaseModel } from "./release-model.ts";
import { RELEASE_FILE, type ReleaseFile } from "./release-file.ts";
import { payloadBlockers, payloadRelease, releaseFileOf, type PayloadState } from "./state.ts";
import { checkChecksums, loadRelease, sizeProblem } from "./verify.ts";
import { FolderWatch, type WatchSettings } from "./watch.ts";

export interface PayloadOptions extends WatchSettings {
  log: Logger;
}

/** release.yaml and the images it lists: the files whose changes mean the payload must be judged again. */
function payloadFiles(release: ReleaseFile | undefined): string[] {
  return [RELEASE_FILE, ...(release?.images.map((image) => image.file) ?? [])];
}

/** The offline payload's state: judged when the installer starts, again whenever its folder has changed and settled. */
export class PayloadManager {
  #state: PayloadState = { kind: "settling" };
  #cancel: (() => Promise<void>) | undefined;
  #listeners: ((state: PayloadState) => void)[] = [];
  readonly #watch: FolderWatch;

  constructor(private readonly options: PayloadOptions) {
    this.#watch = new FolderWatch(options, {
      files: () => payloadFiles(releaseFileOf(this.#state)),
      changed: () => this.#changed(),
      settled: () => this.#judge(),
    });
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
    this.#watch.start();
  }

  async stop(): Promise<void> {
    this.#watch.stop();
    await this.#cancel?.();
  }

  release(): ReleaseModel {
    return payloadRelease(this.#state);
  }

  blockers(): Blocker[] {
    return payloadBlockers(this.#state, this.folder);
  }

  #set(state: PayloadState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener(state);
  }

  /** A copy is under way: what was being checked no longer counts. */
  async #changed(): Promise<void> {
    if (this.#state.kind === "settling") return;
    await this.#cancel?.();
    this.#cancel = undefined;
    this.#set({ kind: "settling", release: releaseFileOf(this.#state) });
  }

  /** Reads release.yaml and checks sizes, then starts the checksum run and returns; its end sets the state. */
  async #judge(): Promise<void> {
    const loaded = await loadRelease(this.folder);
    if (loaded.kind !== "ready") {
      await this.#watch.judged(payloadFiles(releaseFileOf(this.#state)));
      return this.#set(loaded);
    }
    const { release } = loaded;
    await this.#watch.judged(payloadFiles(release));
    const problem = await sizeProblem(this.folder, release);
    if (problem) return this.#set({ kind: "invalid", release, detail: problem });

    const totalBytes = release.images.reduce((sum, image) => sum + image.size, 0);
    let doneBytes = 0;
    this.#set({ kind: "verifying", release, doneBytes, totalBytes });
    const started = this.options.now().getTime();
    const run = checkChecksums(this.folder, release, (bytes, file) => {
      doneBytes += bytes;
      this.#state = { kind: "verifying", release, doneBytes, totalBytes, file };
    });
    this.#cancel = run.cancel;
    void run.done.then((mismatch) => {
      if (this.#cancel !== run.cancel) return;
      this.#cancel = undefined;
      if (mismatch) return this.#set({ kind: "invalid", release, detail: mismatch });
      this.options.log.info("payload verified", { release: release.model.release, bytes: totalBytes, ms: this.options.now().getTime() - started });
      this.#set({ kind: "ready", release });
    });
  }
}
