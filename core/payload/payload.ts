import type { Blocker } from "../common/errors.ts";
import type { Logger } from "../common/log.ts";
import type { ReleaseModel } from "./release-model.ts";
import { RELEASE_FILE, type ReleaseFile } from "./release-file.ts";
import { payloadBlockers, payloadRelease, releaseFileOf, type PayloadState } from "./state.ts";
import { checkChecksums, loadRelease, sizeProblem, type LoadedRelease } from "./verify.ts";
import { FolderWatch, type WatchSettings } from "./watch.ts";

interface PayloadManagerDeps extends WatchSettings {
  log: Logger;
}

/** The offline payload's state: judged when the installer starts, again whenever its folder has changed and settled. */
export interface PayloadManager {
  state(): PayloadState;
  release(): ReleaseModel;
  blockers(): Blocker[];
  onChange(listener: (state: PayloadState) => void): void;
  /** Judges the folder at once (the release model is known before the first request), then watches it. */
  start(): Promise<string[]>;
  stop(): Promise<void>;
}

/** release.yaml and the images it lists: the files whose changes mean the payload must be judged again. */
function payloadFiles(release: ReleaseFile | undefined): string[] {
  return [RELEASE_FILE, ...(release?.images.map((image) => image.file) ?? [])];
}

export function createPayloadManager(deps: PayloadManagerDeps): PayloadManager {
  const { folder, log } = deps;
  let state: PayloadState = { kind: "settling" };
  let cancel: (() => Promise<void>) | undefined;
  const listeners: ((state: PayloadState) => void)[] = [];

  const set = (next: PayloadState) => {
    state = next;
    // Installs are refused until the payload is copied again: the journal says why, as it says a payload verified.
    if (next.kind === "invalid") log.warn("payload refused", { release: next.release?.model.release, ...payloadBlockers(next, folder)[0] });
    for (const listener of listeners) listener(next);
  };

  /** A copy is under way: what was being checked no longer counts. */
  const changed = async () => {
    if (state.kind === "settling") return;
    await cancel?.();
    cancel = undefined;
    set({ kind: "settling", release: releaseFileOf(state) });
  };

  /** Reads release.yaml and checks sizes, then starts the checksum run and returns; its end sets the state. */
  const judge = async (loaded?: LoadedRelease) => {
    loaded ??= await loadRelease(folder);
    if (loaded.kind !== "ready") {
      await watch.judged(payloadFiles(releaseFileOf(state)));
      return set(loaded);
    }
    const { release } = loaded;
    await watch.judged(payloadFiles(release));
    const problem = await sizeProblem(folder, release);
    if (problem) return set({ kind: "invalid", release, detail: problem });

    const totalBytes = release.images.reduce((sum, image) => sum + image.size, 0);
    let doneBytes = 0;
    set({ kind: "verifying", release, doneBytes, totalBytes });
    const started = performance.now();
    const run = checkChecksums(folder, release, (bytes, file) => {
      doneBytes += bytes;
      state = { kind: "verifying", release, doneBytes, totalBytes, file };
    });
    cancel = run.cancel;
    void run.done.then((mismatch) => {
      if (cancel !== run.cancel) return;
      cancel = undefined;
      if (mismatch) return set({ kind: "invalid", release, detail: mismatch });
      log.info("payload verified", { release: release.model.release, bytes: totalBytes, ms: Math.round(performance.now() - started) });
      set({ kind: "ready", release });
    });
  };

  /** A release.yaml read as the folder settled, listing files the watch did not sign: they settle before it is judged. */
  let listed: ReleaseFile | undefined;
  const watched = () => payloadFiles(listed ?? releaseFileOf(state));

  /** The folder settled: judged, unless a release.yaml copied in before its images lists them (they went on coming in unwatched). */
  const settled = async () => {
    const loaded = await loadRelease(folder);
    if (loaded.kind === "ready" && payloadFiles(loaded.release).join("\0") !== watched().join("\0")) {
      listed = loaded.release;
      return;
    }
    listed = undefined;
    await judge(loaded);
  };

  const watch = new FolderWatch(deps, { files: watched, changed, settled });

  return {
    state: () => state,
    release: () => payloadRelease(state),
    blockers: () => payloadBlockers(state, folder),
    onChange: (listener) => void listeners.push(listener),
    async start() {
      await judge();
      watch.start();
      return [];
    },
    async stop() {
      watch.stop();
      await cancel?.();
    },
  };
}
