import { createHash } from "node:crypto";
import { readIfPresent } from "./read-if-present.ts";
import { rm } from "node:fs/promises";
import type { FieldError } from "./config/index.ts";
import type { DraftService } from "./draft.ts";
import type { Blocker } from "./errors.ts";
import type { Logger } from "./log.ts";
import type { Store } from "./store.ts";

export const UNATTENDED_STATES = ["started", "invalid", "blocked"] as const;
export type UnattendedState = (typeof UNATTENDED_STATES)[number];

/** What became of the node.yaml stage 1 left for an unattended install (seed 000 `unattended`). */
export interface UnattendedRecord {
  state: UnattendedState;
  origin: string;
  takenAt: string;
  attempt?: number;
  errors?: FieldError[];
  autoStart?: boolean;
}

export interface UnattendedDeps {
  store: Store;
  draft: DraftService;
  blockers: () => Blocker[];
  /** Starts install attempt N with no install code; returns N. */
  startInstall: () => Promise<number>;
  handoff: string;
  installRecord: string;
  log: Logger;
  now: () => Date;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}


/** Stage 1's install record says where it found node.yaml, e.g. {"origin": "node.yaml on the partition labeled STRATUM"}. */
async function originFrom(installRecord: string): Promise<string> {
  try {
    const record = JSON.parse((await readIfPresent(installRecord)) ?? "{}") as { origin?: unknown; handoff?: { origin?: unknown } };
    const origin = record.origin ?? record.handoff?.origin;
    return typeof origin === "string" ? origin : "";
  } catch {
    return "";
  }
}

/** A wait says what it waits for and that it ends by itself: a bare "blocked" reads as a failure. */
function takeOverOutcome(record: UnattendedRecord, blockers: Blocker[]): string {
  if (record.state === "started") return `started (attempt ${record.attempt})`;
  if (record.state === "invalid") return "invalid";
  const codes = [...new Set(blockers.map((b) => b.code))];
  if (codes.length === 0) return "blocked: the install could not start (see the log); it is tried again when the payload changes";
  if (codes.every((code) => code === "PAYLOAD_VERIFYING")) {
    return "waiting for the payload check (PAYLOAD_VERIFYING); it starts by itself once the payload is verified";
  }
  return `blocked by ${codes.join(", ")}; it starts by itself once they clear (GET /status lists them with how to fix each)`;
}

export class UnattendedService {
  #deciding = false;

  constructor(private readonly deps: UnattendedDeps) {}

  get record(): UnattendedRecord | undefined {
    return this.deps.store.data.unattended;
  }

  /**
   * SPEC §8, at the state dir's first start: the handoff node.yaml becomes the draft and
   * what became of it is persisted before the file is removed. A crash in between leaves
   * the file, which the next start recognises by its hash and removes, not taking it twice.
   */
  async takeOver(): Promise<string | undefined> {
    const { store, handoff } = this.deps;
    const text = await readIfPresent(handoff);
    if (store.data.handoff) {
      if (text === undefined) return undefined;
      if (sha256(text) === store.data.handoff.sha256) {
        await rm(handoff, { force: true });
        return `removed ${handoff}, already taken before the last stop`;
      }
      return `${handoff} is not taken: a node.yaml is taken only at the state dir's first start`;
    }
    if (text === undefined) {
      store.data.handoff = { sha256: null };
      await store.write();
      return undefined;
    }
    store.data.handoff = { sha256: sha256(text) };
    store.data.unattended = { state: "blocked", origin: await originFrom(this.deps.installRecord), takenAt: this.deps.now().toISOString() };
    this.deps.draft.set({ source: "yaml", yaml: text });
    await this.#decide();
    const outcome = takeOverOutcome(store.data.unattended, this.deps.blockers());
    await store.write();
    await rm(handoff, { force: true });
    return `took ${handoff} as the draft for an unattended install: ${outcome}`;
  }

  /** Once blockers clear, a blocked node.yaml that still waits is decided again, as at the first start. */
  async blockersChanged(): Promise<void> {
    const record = this.record;
    if (!record || record.state !== "blocked" || !record.autoStart || this.#deciding) return;
    if (this.deps.blockers().length > 0) return;
    await this.#decide();
    await this.deps.store.write();
  }

  /**
   * A person changed the draft or started an install: the draft is theirs, and the wait ends for
   * good. Memory only, persisted with the person's change; returns the undo for when that fails.
   */
  personActed(): (() => void) | undefined {
    const record = this.record;
    if (record?.state !== "blocked" || !record.autoStart) return undefined;
    record.autoStart = false;
    return () => {
      record.autoStart = true;
    };
  }

  async #decide(): Promise<void> {
    const record = this.record!;
    this.#deciding = true;
    try {
      const analysis = this.deps.draft.analysis();
      delete record.autoStart;
      delete record.errors;
      if (!analysis.valid) {
        Object.assign(record, { state: "invalid", errors: analysis.errors });
      } else if (this.deps.blockers().length > 0) {
        Object.assign(record, { state: "blocked", autoStart: true });
      } else {
        Object.assign(record, { state: "started", attempt: this.deps.store.data.attempts.length + 1 });
        try {
          record.attempt = await this.deps.startInstall();
        } catch (err) {
          Object.assign(record, { state: "blocked", autoStart: true });
          delete record.attempt;
          this.deps.log.warn("unattended install could not start", { error: String(err) });
        }
      }
      this.deps.log.info("unattended node.yaml decided", { state: record.state, attempt: record.attempt });
    } finally {
      this.#deciding = false;
    }
  }
}
