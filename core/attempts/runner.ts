import { rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { redactDraft } from "../config/index.ts";
import { writeFileAtomic } from "../atomic-write.ts";
import type { DraftService } from "../draft.ts";
import { InstallerError, type Blocker } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { AttemptKind, Step } from "../model.ts";
import { ensurePrivateDir } from "../private-dir.ts";
import type { Redactor } from "../redact.ts";
import type { Settings } from "../settings.ts";
import type { Store } from "../store.ts";
import { isStorageError, storageError } from "../storage-error.ts";
import { phaseOf } from "../status.ts";
import { AttemptEventLog, BACKLOG_LIMIT, type NewEvent } from "./events.ts";
import type { StepContext } from "./steps/context.ts";
import { runFirstboot } from "./steps/firstboot.ts";
import { runPreflight } from "./steps/preflight.ts";
import { waitForReadiness } from "./steps/readiness.ts";
import type { AttemptRecord, FailureCode, Verdict } from "./types.ts";
import { StepFailure, nextAction } from "./verdict.ts";

export interface RunnerDeps {
  store: Store;
  draft: DraftService;
  settings: Pick<Settings, "stateDir" | "nodeYaml" | "firstboot" | "readinessUrl" | "readinessTimeoutSeconds" | "readinessIntervalSeconds">;
  blockers: () => Blocker[];
  payloadVersion: () => string | null;
  redactor: Redactor;
  log: Logger;
  now: () => Date;
  /** A person started an attempt: the unattended wait ends. Changes memory only; returns its undo. */
  personActed: () => (() => void) | undefined;
}

export interface StartedAttempt {
  attempt: number;
  record: AttemptRecord;
}

const STEPS_OF: Record<AttemptKind, readonly Step[]> = {
  install: ["preflight", "write-config", "firstboot", "readiness"],
  "recheck-readiness": ["readiness"],
};

export class AttemptRunner {
  readonly #logs = new Map<number, Promise<AttemptEventLog>>();
  readonly #eventsDir: string;
  #abort = new AbortController();
  #running: Promise<void> | undefined;

  constructor(private readonly deps: RunnerDeps) {
    this.#eventsDir = join(deps.settings.stateDir, "events");
  }

  get attempts(): readonly AttemptRecord[] {
    return this.deps.store.data.attempts;
  }

  find(attempt?: number): AttemptRecord {
    const record = attempt === undefined ? this.attempts.at(-1) : this.attempts.find((a) => a.attempt === attempt);
    if (!record) {
      throw new InstallerError({
        code: "NOT_FOUND",
        detail: attempt === undefined ? "No install attempt has started yet." : `There is no attempt ${attempt}; attempts so far: ${this.attempts.length}.`,
      });
    }
    return record;
  }

  eventLog(attempt: number, fresh = false): Promise<AttemptEventLog> {
    let log = this.#logs.get(attempt);
    if (!log) {
      const path = join(this.#eventsDir, `attempt-${attempt}.jsonl`);
      log = ensurePrivateDir(this.#eventsDir)
        .then(() => AttemptEventLog.open(attempt, path, this.deps.now, (err) => storageError(this.deps.settings.stateDir, err), fresh))
        .catch((err: unknown) => {
          this.#logs.delete(attempt);
          throw storageError(this.deps.settings.stateDir, err);
        });
      this.#logs.set(attempt, log);
    }
    return log;
  }

  /** At start: an attempt the previous process left running failed, INTERRUPTED at the step it was in. */
  async recoverInterrupted(): Promise<AttemptRecord[]> {
    const interrupted = this.attempts.filter((a) => a.state === "running");
    const recovered: [AttemptRecord, AttemptEventLog][] = [];
    for (const record of interrupted) {
      const log = await this.eventLog(record.attempt);
      const step = record.step;
      this.#finish(record, log, {
        code: "INTERRUPTED",
        step,
        message: `The installer stopped during ${step ?? "the start of the attempt"} (killed or rebooted); ${step === "readiness" ? "recheck readiness" : "retry the install"}.`,
      });
      recovered.push([record, log]);
    }
    try {
      await Promise.all(recovered.map(([, log]) => log.sync()));
      await this.deps.store.write();
      await Promise.all(recovered.map(([record, log]) => this.#release(record.attempt, log)));
    } catch (err) {
      if (!isStorageError(err)) throw err;
      for (const [record, log] of recovered) {
        void this.#settle(record, log).catch((e: unknown) => this.deps.log.error("recording an interrupted attempt failed", { attempt: record.attempt, error: String(e) }));
      }
    }
    return interrupted;
  }

  /**
   * Checks and reserves the attempt synchronously (two concurrent calls cannot both pass), then
   * records it: its event log first, then the store. An attempt whose record cannot be written
   * does not start, and memory and disk are as before (INSUFFICIENT_STORAGE).
   */
  async start(kind: AttemptKind, startedBy: AttemptRecord["startedBy"]): Promise<StartedAttempt> {
    this.#refuse(kind);
    const now = this.deps.now().toISOString();
    const draftRecord = this.deps.draft.record();
    const record: AttemptRecord = {
      attempt: this.attempts.length + 1,
      kind,
      startedBy,
      state: "running",
      step: null,
      startedAt: now,
      steps: [],
      config:
        draftRecord.source === "yaml"
          ? { source: "yaml", yaml: this.deps.redactor.text(draftRecord.yaml) }
          : { source: "structured", config: redactDraft(draftRecord.config) },
      payloadVersion: this.deps.payloadVersion(),
      firstbootTail: [],
      readinessHistory: [],
    };
    this.deps.store.data.attempts.push(record);
    const undoPerson = startedBy === "person" ? this.deps.personActed() : undefined;
    let log: AttemptEventLog | undefined;
    try {
      log = await this.eventLog(record.attempt, true);
      log.append({ type: "attempt.started", level: "info", message: `${kind === "install" ? "install" : "readiness recheck"} attempt ${record.attempt} started by ${startedBy === "person" ? "a person" : "the unattended node.yaml"}`, data: { kind, startedBy } });
      await log.sync();
      await this.deps.store.write();
    } catch (err) {
      this.deps.store.data.attempts.splice(this.deps.store.data.attempts.indexOf(record), 1);
      undoPerson?.();
      await this.#discardLog(record.attempt, log);
      throw err;
    }
    this.#running = this.#run(record, log).catch((err: unknown) => this.deps.log.error("attempt runner failed", { attempt: record.attempt, error: String(err) }));
    return { attempt: record.attempt, record };
  }

  /** An ended attempt's log: its handle closes; a later reader opens the file anew. */
  async #release(attempt: number, log: AttemptEventLog): Promise<void> {
    this.#logs.delete(attempt);
    await log.close();
  }

  async #discardLog(attempt: number, log: AttemptEventLog | undefined): Promise<void> {
    this.#logs.delete(attempt);
    if (!log) return;
    await log.close().catch(() => undefined);
    await rm(log.path, { force: true }).catch(() => undefined);
  }

  /** While an attempt runs the draft stays as it validated it; once installed, it is history. */
  refuseWhileBusy(what: string): void {
    const phase = phaseOf(this.attempts);
    if (phase === "installing") throw new InstallerError({ code: "INSTALL_RUNNING", detail: `Attempt ${this.attempts.length} is running, so ${what} must wait until it ends; follow it at /v1/installer/install/events.` });
    if (phase === "done") throw new InstallerError({ code: "ALREADY_INSTALLED", detail: `An install attempt succeeded: this node is installed, so ${what} has no effect any more.` });
  }

  #refuse(kind: AttemptKind): void {
    this.refuseWhileBusy(kind === "install" ? "another install" : "a readiness recheck");
    if (kind === "recheck-readiness") {
      const last = this.attempts.at(-1);
      if (!last || last.verdict?.step !== "readiness") {
        throw new InstallerError({
          code: "RECHECK_NOT_APPLICABLE",
          detail: last
            ? `The last attempt (${last.attempt}) failed at ${last.verdict?.step ?? "its start"}, not at readiness; its verdict says ${last.verdict?.next ?? "retryInstall"}.`
            : "No install attempt has run yet; start one with POST /v1/installer/install.",
        });
      }
      return;
    }
    const analysis = this.deps.draft.analysis();
    if (!analysis.valid) {
      throw new InstallerError({ code: "INVALID_CONFIG", detail: "The draft does not validate; fix the fields listed in `errors`, then install.", errors: analysis.errors });
    }
    const blockers = this.deps.blockers();
    if (blockers.length > 0) {
      throw new InstallerError({ code: "INSTALL_BLOCKED", detail: "Blockers refuse the install; each says how to clear it.", blockers });
    }
  }

  async #run(record: AttemptRecord, log: AttemptEventLog): Promise<void> {
    const shutdown = this.#abort.signal;
    // A write the state dir refuses mid-attempt stops the step at once (firstboot included).
    const storage = new AbortController();
    const stopListening = log.onFailure((err) => storage.abort(err));
    const signal = AbortSignal.any([shutdown, storage.signal]);
    let current: Step | null = null;
    try {
      for (const step of STEPS_OF[record.kind]) {
        current = step;
        await this.#step(record, log, step, signal, (ctx) => this.#perform(step, ctx, record));
      }
      this.#finish(record, log, { code: null, step: current, message: record.kind === "install" ? "The node is installed and the cloud reports READY." : "The cloud reports READY." });
    } catch (err) {
      if (shutdown.aborted) return;
      const failure = storage.signal.aborted || isStorageError(err) ? this.#stateWriteFailure(current, err) : err instanceof StepFailure ? err : new StepFailure(codeForStep(current), `${current ?? "attempt"} failed: ${(err as Error).message}`);
      this.#finish(record, log, { code: failure.code, step: current, message: failure.message, next: failure.next, data: failure.data });
    } finally {
      stopListening();
    }
    await this.#settle(record, log);
  }

  #stateWriteFailure(step: Step | null, err: unknown): StepFailure {
    const why = isStorageError(err) ? err.detail.replace(/; nothing was changed\..*$/s, "") : `The state dir ${this.deps.settings.stateDir} cannot be written`;
    return new StepFailure(
      "STATE_WRITE_FAILED",
      `${why}, so the attempt stopped during ${step ?? "its start"}. Free space in the state dir (or make it writable), then retry the install.`,
      undefined,
      "retryInstall",
    );
  }

  /**
   * A finished attempt's record and events reach the disk as soon as it takes them: while the
   * state dir refuses writes the verdict lives in memory (the phase is already failed) and this
   * tries again, backing off, until it is written or the service stops.
   */
  async #settle(record: AttemptRecord, log: AttemptEventLog): Promise<void> {
    const shutdown = this.#abort.signal;
    for (let delay = 500; !shutdown.aborted; delay = Math.min(delay * 2, 10_000)) {
      try {
        await log.sync();
        await this.deps.store.write();
        return this.#release(record.attempt, log);
      } catch (err) {
        if (!isStorageError(err)) throw err;
        if (delay === 500) this.deps.log.warn("attempt not recorded yet: the state dir refuses writes; retrying", { attempt: record.attempt, error: err.detail });
        await sleep(delay, undefined, { signal: shutdown }).catch(() => undefined);
      }
    }
  }

  async #step(record: AttemptRecord, log: AttemptEventLog, step: Step, signal: AbortSignal, body: (ctx: StepContext) => Promise<void>): Promise<void> {
    const started = Date.now();
    record.step = step;
    const stepRecord = { step, state: "running" as const, startedAt: this.deps.now().toISOString() };
    record.steps.push(stepRecord);
    // The store learns of the step before any client does: a kill between the two is recovered at this step.
    await this.deps.store.write();
    log.append({ type: "step.started", step, level: "info", message: `${step} started` });
    await log.sync();
    const ctx: StepContext = {
      emit: (event: Omit<NewEvent, "step">) => log.append({ ...event, step }),
      backlogged: () => (log.backlog >= BACKLOG_LIMIT ? log.flush().catch(() => undefined) : undefined),
      redactor: this.deps.redactor,
      now: this.deps.now,
      signal,
    };
    try {
      await body(ctx);
      if (signal.aborted) throw signal.reason;
    } catch (err) {
      if (this.#abort.signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      Object.assign(stepRecord, { state: "failed", finishedAt: this.deps.now().toISOString(), message: this.deps.redactor.text(message) });
      log.append({ type: "step.finished", step, level: "error", message: `${step} failed: ${this.deps.redactor.text(message)}`, data: { outcome: "failed", durationMs: Date.now() - started } });
      throw err;
    }
    Object.assign(stepRecord, { state: "succeeded", finishedAt: this.deps.now().toISOString() });
    log.append({ type: "step.finished", step, level: "info", message: `${step} succeeded`, data: { outcome: "succeeded", durationMs: Date.now() - started } });
  }

  async #perform(step: Step, ctx: StepContext, record: AttemptRecord): Promise<void> {
    const { settings } = this.deps;
    switch (step) {
      case "preflight":
        return runPreflight(ctx, { draft: this.deps.draft.analysis(), blockers: this.deps.blockers(), firstboot: settings.firstboot });
      case "write-config": {
        const text = this.deps.draft.nodeYaml();
        try {
          await writeFileAtomic(settings.nodeYaml, text, 0o600);
        } catch (err) {
          throw new StepFailure("WRITE_FAILED", `could not write ${settings.nodeYaml}: ${(err as Error).message}`);
        }
        record.nodeYamlPath = settings.nodeYaml;
        ctx.emit({ type: "step.progress", level: "info", message: `wrote ${settings.nodeYaml} (${Buffer.byteLength(text)} bytes, mode 0600)` });
        return;
      }
      case "firstboot":
        return runFirstboot(ctx, { executable: settings.firstboot, nodeYamlPath: settings.nodeYaml, record, persist: () => this.deps.store.write() });
      case "readiness":
        return waitForReadiness(
          ctx,
          { url: settings.readinessUrl, timeoutSeconds: settings.readinessTimeoutSeconds, intervalSeconds: settings.readinessIntervalSeconds },
          record.readinessHistory,
        );
    }
  }

  #finish(
    record: AttemptRecord,
    log: AttemptEventLog,
    outcome: { code: FailureCode | null; step: Step | null; message: string; next?: Verdict["next"]; data?: Record<string, unknown> },
  ): void {
    const message = this.deps.redactor.text(outcome.message);
    const verdict: Verdict = {
      attempt: record.attempt,
      kind: record.kind,
      outcome: outcome.code === null ? "succeeded" : "failed",
      step: outcome.step,
      code: outcome.code,
      message,
      next: outcome.code === null ? "none" : (outcome.next ?? nextAction(outcome.code, outcome.step)),
    };
    record.state = outcome.code === null ? "succeeded" : "failed";
    record.finishedAt = this.deps.now().toISOString();
    for (const step of record.steps) {
      if (step.state === "running") Object.assign(step, { state: "failed", finishedAt: record.finishedAt, message });
    }
    record.verdict = verdict;
    log.append({
      type: "attempt.finished",
      ...(outcome.step ? { step: outcome.step } : {}),
      level: outcome.code === null ? "info" : "error",
      message,
      data: { verdict },
    });
  }

  /** Stops a running attempt where it is (firstboot's whole group included); the next start marks it INTERRUPTED. */
  async shutdown(): Promise<void> {
    this.#abort.abort(new Error("installer stopping"));
    this.#abort = new AbortController();
    await this.#running;
    await Promise.all([...this.#logs.values()].map(async (log) => (await log).sync().catch(() => undefined)));
  }
}

function codeForStep(step: Step | null): FailureCode {
  switch (step) {
    case "write-config":
      return "WRITE_FAILED";
    case "firstboot":
      return "FIRSTBOOT_FAILED";
    case "readiness":
      return "READINESS_TIMEOUT";
    default:
      return "PREFLIGHT_FAILED";
  }
}
