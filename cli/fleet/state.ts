import { open } from "node:fs/promises";
import { printableJsonText } from "../../core/common/printable.ts";
import { removeInterruptedWritesOf, writeFileAtomic } from "../../core/fs/atomic-write.ts";
import { readIfPresent } from "../../core/fs/read-if-present.ts";
import { TextFileProblem } from "../../core/fs/read-text-file.ts";
import { notWrittenBecause, writeRemedy } from "../../core/fs/storage-error.ts";
import { isNodeRecord, journalHeader, journalLine, journalPathOf, type NodeRecord, parseJournal } from "./state-journal.ts";

export { journalPathOf, type NodeRecord };

interface StateDocument {
  version: 1;
  plan: string;
  planHash: string;
  updatedAt: string;
  nodes: Record<string, NodeRecord>;
}

export class StateFileError extends Error {}

const SEEN_WRITE_MS = 1_000;

const unreadable = (file: string, error: unknown) =>
  new StateFileError(`the state file ${file} cannot be read (${error instanceof TextFileProblem ? error.reason : (error as Error).message}): move it away, or give another with --state`);

/**
 * The temp files a run killed mid-write (kill -9) left beside the state file and its journal (`.FILE.PID.tmp`, 0600,
 * for good otherwise): removed. Only by the run that holds the state file's lock, when no other run writes either (a
 * dry run writes neither); one that cannot be removed is left as it was, and the run goes on.
 */
export async function removeInterruptedWrites(path: string): Promise<void> {
  await Promise.all([path, journalPathOf(path)].map((file) => removeInterruptedWritesOf(file).catch(() => undefined)));
}

/**
 * The resume file (SPEC §10.5) and its journal beside it. A run's first write folds the journal into a new document
 * and empties the journal; then it appends one line per changed node record (so a change costs the same bytes at a
 * thousand nodes as at ten), and ends with the whole document again. One write at a time; event positions at most once
 * a second. Changes made while a write is in flight join one next write, so a thousand nodes' changes cost as many
 * writes as the disk can take, not one each.
 */
export class FleetState {
  readonly path: string;
  /** The plan hash of the run that wrote the file, when another plan than this one. */
  readonly previousPlanHash: string | undefined;
  #doc: StateDocument;
  /** Nodes changed since the last write began. */
  readonly #dirty = new Set<string>();
  /** The next write is the whole document and an empty journal: a run's first and last, and the one after a failed write. */
  #whole = false;
  /** The write on its way to disk, if any… */
  #writing: Promise<void> | undefined;
  /** …and the one after it, not begun yet: every change since #writing began is in it. */
  #next: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Told once when writes begin to fail (and again after one succeeded in between): the run goes on, its end says it again. */
  onTrouble?: (message: string) => void;
  #troubled = false;

  private constructor(path: string, doc: StateDocument, previousPlanHash: string | undefined) {
    this.path = path;
    this.#doc = doc;
    this.previousPlanHash = previousPlanHash;
  }

  static async open(path: string, plan: string, planHash: string): Promise<FleetState> {
    let doc: StateDocument | undefined;
    try {
      const text = await readIfPresent(path, { lenient: false });
      if (text !== undefined) {
        const read = JSON.parse(text) as StateDocument;
        if (read.version !== 1 || typeof read.nodes !== "object" || read.nodes === null) throw new Error("not a fleet state file");
        // A list of nodes, or a record of another shape, would be taken and each run's records left out of it.
        if (Array.isArray(read.nodes)) throw new Error("not a fleet state file: nodes is a list, not a record of nodes");
        const odd = Object.keys(read.nodes).find((name) => !isNodeRecord(read.nodes[name]));
        if (odd !== undefined) throw new Error(`not a fleet state file: nodes.${odd} is not a node record`);
        doc = read;
      }
    } catch (error) {
      throw unreadable(path, error);
    }
    // A journal continues the document of its plan; beside no document, or another plan's, it is not applied.
    if (doc !== undefined) {
      const journal = journalPathOf(path);
      try {
        const read = parseJournal((await readIfPresent(journal, { lenient: false })) ?? "");
        if (read.planHash === doc.planHash) for (const line of read.lines) doc.nodes[line.node] = line.record;
      } catch (error) {
        throw unreadable(journal, error);
      }
    }
    const previous = doc !== undefined && doc.planHash !== planHash ? doc.planHash : undefined;
    const state = new FleetState(path, { version: 1, plan, planHash, updatedAt: "", nodes: doc?.nodes ?? {} }, previous);
    // Its first write folds the journal into a new document: until a node changes, the files stay as they were.
    state.#whole = true;
    return state;
  }

  node(name: string): Readonly<NodeRecord> {
    return this.#doc.nodes[name] ?? {};
  }

  /** Records a change and resolves once it is on disk. */
  set(name: string, change: NodeRecord): Promise<void> {
    this.#change(name, change);
    return this.flush();
  }

  /** Records the last event shown; written within a second. */
  seen(name: string, seq: number): void {
    this.#change(name, { lastSeq: seq });
    // A failed write shows at the next set(), whose write is then the whole document.
    this.#timer ??= setTimeout(() => void this.flush().catch(() => undefined), SEEN_WRITE_MS);
  }

  /** Resolves once every change made so far is on disk. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#next ??= this.#writeAfter(this.#writing);
    return this.#next;
  }

  /** The end of a run: every change on disk, in the whole document, and the journal empty. */
  close(): Promise<void> {
    this.#whole = true;
    return this.flush();
  }

  #change(name: string, change: NodeRecord): void {
    this.#doc.nodes[name] = { ...this.node(name), ...change };
    this.#dirty.add(name);
  }

  async #writeAfter(previous: Promise<void> | undefined): Promise<void> {
    await previous?.catch(() => undefined);
    this.#next = undefined;
    const whole = this.#whole;
    const names = [...this.#dirty];
    this.#whole = false;
    this.#dirty.clear();
    const writing = (whole ? this.#writeWhole() : this.#append(names)).then(
      () => void (this.#troubled = false),
      (error: NodeJS.ErrnoException) => {
        this.#whole = true;
        const problem = new StateFileError(`the state file ${this.path} cannot be written (${notWrittenBecause(error)}): ${writeRemedy(error)}, or give another with --state; run the same command again to go on where this run stopped`);
        if (!this.#troubled) this.onTrouble?.(problem.message);
        this.#troubled = true;
        throw problem;
      },
    );
    this.#writing = writing;
    try {
      await writing;
    } finally {
      if (this.#writing === writing) this.#writing = undefined;
    }
  }

  /** The document first, then the journal emptied: its lines are in the document, so a crash between loses nothing. */
  async #writeWhole(): Promise<void> {
    // A node's text in it (an ETag) escaped as the report's is: `cat` on it shows a C1 control or a bidi override, never obeys it.
    await writeFileAtomic(this.path, `${printableJsonText(JSON.stringify({ ...this.#doc, updatedAt: new Date().toISOString() }, null, 2))}\n`);
    await writeFileAtomic(journalPathOf(this.path), journalHeader(this.#doc.planHash));
  }

  async #append(names: string[]): Promise<void> {
    if (names.length === 0) return;
    const file = await open(journalPathOf(this.path), "a", 0o600);
    try {
      await file.appendFile(names.map((name) => journalLine(name, this.node(name))).join(""));
      await file.sync();
    } finally {
      await file.close();
    }
  }
}
