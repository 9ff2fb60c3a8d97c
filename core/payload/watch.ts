import { watch, type FSWatcher } from "node:fs";
import { monotonic, type Clock } from "../common/clock.ts";
import { stat } from "node:fs/promises";
import { join } from "node:path";

export interface WatchSettings {
  folder: string;
  /** How often the folder is looked at besides fs.watch (which misses changes on some filesystems). */
  pollMs?: number;
  /** A change is judged only once nothing has changed for this long: a payload copied in slowly is not judged half-way. */
  settleMs?: number;
  /**
   * What the settle time is measured by: milliseconds from any origin, never stepped (performance.now() unless a test
   * gives its own). A fresh node's first time sync may step the wall clock back by hours, in the middle of a copy.
   */
  monotonic?: Clock;
}

interface WatchCallbacks {
  /** The files, relative to the folder, whose sizes, times and inodes make its signature. */
  files(): string[];
  /** The folder differs from what was last judged: a copy is under way. */
  changed(): Promise<void>;
  /** The folder has been still for settleMs and differs from what was last judged: judge it now. */
  settled(): Promise<void>;
}

/** Watches a folder being copied into and says when it has changed and when it has settled. */
export class FolderWatch {
  #judged: string | undefined;
  #seen: string | undefined;
  #seenSince = 0;
  #timer: NodeJS.Timeout | undefined;
  #watcher: FSWatcher | undefined;
  #checking = false;
  readonly #settings: WatchSettings;
  readonly #on: WatchCallbacks;
  readonly #clock: () => number;

  constructor(settings: WatchSettings, on: WatchCallbacks) {
    this.#settings = settings;
    this.#on = on;
    this.#clock = settings.monotonic ?? monotonic;
  }

  start(): void {
    this.#timer = setInterval(() => void this.#check(), this.#settings.pollMs ?? 1000);
    this.#timer.unref();
    this.#watch();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#watcher?.close();
  }

  /** Takes the folder as it is now, signed over these files, as judged: only a change from it counts. */
  async judged(files: string[]): Promise<void> {
    this.#judged = this.#seen = await this.#signature(files);
  }

  #watch(): void {
    try {
      this.#watcher = watch(this.#settings.folder, { recursive: true, persistent: false }, () => void this.#check());
      this.#watcher.on("error", () => {
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch {
      // No folder yet, or no watch support: the poll sees it.
    }
  }

  async #check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      if (!this.#watcher) this.#watch();
      const signature = await this.#signature(this.#on.files());
      if (signature !== this.#seen) {
        this.#seen = signature;
        this.#seenSince = this.#clock();
        if (signature !== this.#judged) await this.#on.changed();
        return;
      }
      if (signature === this.#judged || this.#clock() - this.#seenSince < (this.#settings.settleMs ?? 1000)) return;
      await this.#on.settled();
    } finally {
      this.#checking = false;
    }
  }

  /** Sizes, times and inodes of the files: what changes while a payload is copied in. */
  async #signature(files: string[]): Promise<string> {
    const stats = await Promise.all(
      files.map(async (name) => {
        const s = await stat(join(this.#settings.folder, name)).catch(() => undefined);
        return s ? `${name}:${s.size}:${s.mtimeMs}:${s.ino}` : `${name}:-`;
      }),
    );
    return stats.join("|");
  }
}
