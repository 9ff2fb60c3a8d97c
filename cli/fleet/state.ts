import { writeFileAtomic } from "../../core/fs/atomic-write.ts";
import { readIfPresent } from "../../core/fs/read-if-present.ts";

/** What the fleet knows of one node between runs (no secret: the join token is read from the init node again). */
interface NodeRecord {
  /** The attempt it started or followed last… */
  attempt?: number;
  /** …and the last of its events shown, where following it resumes. */
  lastSeq?: number;
  /** The ETag of the draft the fleet wrote: the next run writes over it with If-Match. */
  etag?: string;
  /** How that attempt ended, once the fleet saw its verdict. */
  outcome?: "succeeded" | "failed";
}

interface StateDocument {
  version: 1;
  plan: string;
  planHash: string;
  updatedAt: string;
  nodes: Record<string, NodeRecord>;
}

export class StateFileError extends Error {}

const SEEN_WRITE_MS = 1_000;

/**
 * The resume file (SPEC §10.5): written whole and atomically, one write at a time; event positions at most once a
 * second. Changes made while a write is in flight join one next write (the document is read when that write
 * begins), so a thousand nodes' changes cost as many writes as the disk can take, not one each.
 */
export class FleetState {
  readonly path: string;
  /** The plan hash of the run that wrote the file, when another plan than this one. */
  readonly previousPlanHash: string | undefined;
  #doc: StateDocument;
  /** The write on its way to disk, if any… */
  #writing: Promise<void> | undefined;
  /** …and the one after it, not begun yet: every change since #writing began is in it. */
  #next: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  private constructor(path: string, doc: StateDocument, previousPlanHash: string | undefined) {
    this.path = path;
    this.#doc = doc;
    this.previousPlanHash = previousPlanHash;
  }

  static async open(path: string, plan: string, planHash: string): Promise<FleetState> {
    let doc: StateDocument = { version: 1, plan, planHash, updatedAt: new Date().toISOString(), nodes: {} };
    try {
      const text = await readIfPresent(path);
      if (text !== undefined) {
        const read = JSON.parse(text) as StateDocument;
        if (read.version !== 1 || typeof read.nodes !== "object" || read.nodes === null) throw new Error("not a fleet state file");
        doc = read;
      }
    } catch (error) {
      throw new StateFileError(`the state file ${path} cannot be read (${(error as Error).message}): move it away, or give another with --state`);
    }
    const previous = doc.planHash !== planHash ? doc.planHash : undefined;
    return new FleetState(path, { ...doc, plan, planHash }, previous);
  }

  node(name: string): Readonly<NodeRecord> {
    return this.#doc.nodes[name] ?? {};
  }

  /** Records a change and resolves once it is on disk. */
  set(name: string, change: NodeRecord): Promise<void> {
    this.#doc.nodes[name] = { ...this.node(name), ...change };
    return this.flush();
  }

  /** Records the last event shown; written within a second. */
  seen(name: string, seq: number): void {
    this.#doc.nodes[name] = { ...this.node(name), lastSeq: seq };
    // A failed write shows at the next set(), which writes the same document again.
    this.#timer ??= setTimeout(() => void this.flush().catch(() => undefined), SEEN_WRITE_MS);
  }

  /** Resolves once every change made so far is on disk. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#next ??= this.#writeAfter(this.#writing);
    return this.#next;
  }

  async #writeAfter(previous: Promise<void> | undefined): Promise<void> {
    await previous?.catch(() => undefined);
    this.#next = undefined;
    const text = `${JSON.stringify({ ...this.#doc, updatedAt: new Date().toISOString() }, null, 2)}\n`;
    const writing = writeFileAtomic(this.path, text).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === "ENOSPC" ? "its disk is full" : error.message;
      throw new StateFileError(`the state file ${this.path} cannot be written (${why}): free space there, or give another with --state; run the same command again to go on where this run stopped`);
    });
    this.#writing = writing;
    try {
      await writing;
    } finally {
      if (this.#writing === writing) this.#writing = undefined;
    }
  }
}
