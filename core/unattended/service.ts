import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import type { Attempts } from "../attempts/index.ts";
import type { DraftService } from "../draft/index.ts";
import type { Blocker, InstallerError } from "../common/errors.ts";
import type { Logger } from "../common/log.ts";
import { readTextFile, TextFileProblem } from "../fs/read-text-file.ts";
import { YAML_LIMITS } from "../config/yaml.ts";
import { isStorageError, storageFault } from "../fs/storage-error.ts";
import { retryWhileStorageRefuses, type RetryWait } from "../fs/storage-retry.ts";
import type { HandoffRecord, UnattendedRecord } from "../state/records.ts";
import type { Slice } from "../state/store.ts";

interface UnattendedServiceDeps {
  unattended: Slice<UnattendedRecord | undefined>;
  handoff: Slice<HandoffRecord | undefined>;
  draft: Pick<DraftService, "set" | "analysis">;
  attempts: Pick<Attempts, "beginUnattended">;
  blockers: () => Blocker[];
  /** Where stage 1 leaves the node.yaml (--handoff). */
  handoffPath: string;
  installRecord: string;
  log: Logger;
  now: () => Date;
  /** Waits before a retry of a start the state dir refused (core/fs/storage-retry.ts). */
  wait?: RetryWait;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Stage 1's install record says where it found node.yaml, e.g. {"origin": "node.yaml on the partition labeled STRATUM"}. */
async function originFrom(installRecord: string): Promise<string> {
  try {
    const record = JSON.parse(await readTextFile(installRecord, 64 * 1024, { noLink: true })) as { origin?: unknown; handoff?: { origin?: unknown } };
    const origin = record.origin ?? record.handoff?.origin;
    return typeof origin === "string" ? origin : "";
  } catch {
    return "";
  }
}

/** A wait says what it waits for and that it ends by itself: a bare "blocked" reads as a failure. */
function takeOverOutcome(record: UnattendedRecord, blockers: Blocker[], refused: InstallerError | undefined): string {
  if (record.state === "started") return `started (attempt ${record.attempt})`;
  if (record.state === "invalid") return "invalid";
  const codes = [...new Set(blockers.map((b) => b.code))];
  if (codes.length === 0 && refused) {
    const { why, remedy, gone } = storageFault(refused);
    return gone
      ? `blocked: the install could not start: ${why}; ${remedy}`
      : `blocked: the install could not start: ${why}; it is tried again by itself until the state dir takes writes: ${remedy}`;
  }
  if (codes.length === 0) return "blocked: the install could not start (see the log); it is tried again when the payload changes";
  if (codes.every((code) => code === "PAYLOAD_VERIFYING")) {
    return "waiting for the payload check (PAYLOAD_VERIFYING); it starts by itself once the payload is verified";
  }
  return `blocked by ${codes.join(", ")}; it starts by itself once they clear (GET /status lists them with how to fix each)`;
}

/** SPEC §8: the node.yaml stage 1 leaves, taken as the draft and installed without a person when it validates. */
interface UnattendedService {
  record(): UnattendedRecord | undefined;
  /**
   * At the state dir's first start: the handoff node.yaml becomes the draft and what became of it
   * is persisted before the file is removed. A crash in between leaves the file, which the next
   * start recognises by its hash and removes, not taking it twice. Returns notices for the banner.
   */
  start(): Promise<string[]>;
  /** Once blockers clear, a blocked node.yaml that still waits is decided again, as at the first start. */
  blockersChanged(): Promise<void>;
  /**
   * A person changed the draft or started an install: the draft is theirs, and the wait ends for
   * good. Memory only, persisted with the person's change; returns the undo for when that fails.
   */
  personActed(): (() => void) | undefined;
  /** Ends the retries of a start the state dir refused (the service stops); resolves once the one under way ended. */
  stop(): Promise<void>;
  /** Resolves once no retry of a refused start is under way (at once when none is): what a stop awaits, and a test. */
  retryEnded(): Promise<void>;
}

export function createUnattendedService(deps: UnattendedServiceDeps): UnattendedService {
  const { unattended, handoff, handoffPath, log } = deps;
  let deciding = false;
  /** The state dir's refusal of the last start, while it waits for a retry. */
  let refused: InstallerError | undefined;
  let retrying: Promise<void> | undefined;
  const stopped = new AbortController();

  /** Still waiting to start by itself, nothing blocking it: what a refused start leaves. */
  const mayStart = () => {
    const record = unattended.get();
    return record?.state === "blocked" && record.autoStart === true && deps.blockers().length === 0;
  };

  /**
   * A start the state dir refused (a full disk, a read-only remount) is tried again by itself: nothing else would
   * (no blocker clears), and no person is there. It ends once it started, a person acted, a blocker came (which
   * decides again once it clears), or the service stops.
   */
  const retryStart = () => {
    // A state dir that is gone is made again only by a restart: nothing to retry.
    if (retrying || !refused || storageFault(refused).gone) return;
    retrying = retryWhileStorageRefuses(
      async () => {
        if (mayStart() && !deciding) await decide();
        // Written each time (a start the disk took may not have been written with it), until it goes through.
        await unattended.save();
        if (refused && mayStart()) throw refused;
      },
      stopped.signal,
      deps.wait,
    )
      .then((failed) => void (failed && log.error("unattended decision failed", { error: String(failed) })))
      .finally(() => (retrying = undefined));
  };

  const retryEnded = async () => {
    while (retrying) await retrying;
  };

  const decide = async () => {
    const record = unattended.get()!;
    deciding = true;
    try {
      const analysis = deps.draft.analysis();
      delete record.autoStart;
      delete record.errors;
      refused = undefined;
      if (!analysis.valid) {
        Object.assign(record, { state: "invalid", errors: analysis.errors });
      } else if (deps.blockers().length > 0) {
        Object.assign(record, { state: "blocked", autoStart: true });
      } else {
        try {
          await deps.attempts.beginUnattended((attempt) => {
            Object.assign(record, { state: "started", attempt });
          });
        } catch (err) {
          Object.assign(record, { state: "blocked", autoStart: true });
          delete record.attempt;
          log.warn("unattended install could not start", { error: String(err) });
          if (isStorageError(err)) {
            refused = err;
            retryStart();
          }
        }
      }
      log.info("unattended node.yaml decided", { state: record.state, attempt: record.attempt });
    } finally {
      deciding = false;
    }
  };

  const takeOver = async (): Promise<string | undefined> => {
    let text: string | undefined;
    try {
      text = await readTextFile(handoffPath, YAML_LIMITS.maxBytes, { noLink: true });
    } catch (err) {
      if (err instanceof TextFileProblem) return `${handoffPath} is not taken: it ${err.reason} (stage 1 leaves node.yaml as a file)`;
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const taken = handoff.get();
    if (taken) {
      if (text === undefined) return undefined;
      if (sha256(text) === taken.sha256) {
        await rm(handoffPath, { force: true });
        return `removed ${handoffPath}, already taken before the last stop`;
      }
      return `${handoffPath} is not taken: a node.yaml is taken only at the state dir's first start`;
    }
    if (text === undefined) {
      handoff.set({ sha256: null });
      await handoff.save();
      return undefined;
    }
    // Written before the file counts as taken: a crash now takes it again at the next start.
    await deps.draft.set({ source: "yaml", yaml: text });
    handoff.set({ sha256: sha256(text) });
    const origin = await originFrom(deps.installRecord);
    unattended.set({ state: "blocked", origin, takenAt: deps.now().toISOString() });
    await decide();
    const outcome = takeOverOutcome(unattended.get()!, deps.blockers(), refused);
    await unattended.save();
    await rm(handoffPath, { force: true });
    return `took ${handoffPath} as the draft for an unattended install: ${outcome}`;
  };

  return {
    record: () => unattended.get(),
    async start() {
      const notice = await takeOver();
      return notice === undefined ? [] : [notice];
    },
    async blockersChanged() {
      const record = unattended.get();
      if (!record || record.state !== "blocked" || !record.autoStart || deciding) return;
      if (deps.blockers().length > 0) return;
      await decide();
      await unattended.save();
    },
    async stop() {
      stopped.abort();
      await retryEnded();
    },
    retryEnded,
    personActed() {
      const record = unattended.get();
      if (record?.state !== "blocked" || !record.autoStart) return undefined;
      record.autoStart = false;
      return () => {
        record.autoStart = true;
        // The retry of a refused start saw the person's change and ended; their write failed (the same full disk,
        // likely): the wait is stage 1's again, and so are its retries.
        retryStart();
      };
    },
  };
}
