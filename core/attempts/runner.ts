import { setTimeout as sleep } from "node:timers/promises";
import { monotonic, type Clock } from "../common/clock.ts";
import { redactDraft, type Redactor } from "../secrets/index.ts";
import type { DraftService } from "../draft/index.ts";
import type { Blocker, InstallerError } from "../common/errors.ts";
import type { Logger, Origin } from "../common/log.ts";
import type { AttemptKind, AttemptRecord, FailureCode, Step, StepRecord, Verdict } from "../state/records.ts";
import type { Slice } from "../state/store.ts";
import { isStorageError, storageFault } from "../fs/storage-error.ts";
import { refusal, stoppingBlocker } from "./admission.ts";
import type { EventLog } from "./event-log.ts";
import { BACKLOG_LIMIT, type AttemptEventLog, type InstallEvent, type NewEvent } from "./events.ts";
import { endpointsOf } from "./endpoints.ts";
import { journal } from "./journal.ts";
import type { StepContext } from "./steps/context.ts";
import { firstbootMark } from "../process/group.ts";
import { removeInterruptedWritesOf } from "../fs/atomic-write.ts";
import { TAIL_LINES, stopLeftoverFirstboots } from "./steps/firstboot.ts";
import { STEPS_OF, runStep, stepDeadline, type StepInputs, type StepSettings } from "./steps/index.ts";
import { StepFailure, failureCodeOf, nextAction } from "./verdict.ts";

export interface RunnerDeps {
  attempts: Slice<AttemptRecord[]>;
  events: EventLog;
  draft: Pick<DraftService, "record" | "analysis" | "nodeYaml" | "requireMatch" | "saving" | "settled">;
  /** What refuses an install (the payload's, the installer stopping). */
  blockers: () => Blocker[];
  /** The installer is stopping: no attempt of any kind is admitted (a recheck has no other blocker). */
  stopping?: () => boolean;
  settings: StepSettings;
  payloadVersion: () => string | null;
  redactor: Redactor;
  log: Logger;
  now: () => Date;
  /** What waits are measured by (StepContext.monotonic): performance.now() unless a test gives its own. */
  monotonic?: Clock;
  cluster: StepInputs["cluster"];
  /** The store was kept aside at this start: no record says what ran, so every process of this state dir's firstboot is looked for. */
  recordsLost?: boolean;
}

/**
 * Called once the attempt is admitted and numbered, before the write that records it: what it
 * changes in memory is written with the attempt. Returns the undo for when that write fails.
 */
export type Admitted = (attempt: number) => (() => void) | undefined | void;

/** What a stop did: the attempt it stopped, and what stopping its firstboot group took (none when none ran). */
export interface Stopped {
  attempt?: number;
  /** `processes`: how many it stopped; `survived`: the pids SIGKILL had not ended when the stop gave up waiting (stuck in the kernel), not among them. */
  firstboot?: { processes: number; killedAfterMs?: number; survived?: number[] };
}

/** Attempts as a state machine: admitted, recorded, each step in turn, finished with a verdict, settled on disk. */
export class AttemptRunner {
  #abort = new AbortController();
  #running: Promise<void> | undefined;
  /** What the stop under way did, as the running attempt's steps report it. */
  #stopped: Stopped = {};

  constructor(private readonly deps: RunnerDeps) {}

  /**
   * At start, before anything else runs: stops what the firstboot of a killed installer left
   * running, then fails each attempt it left running, INTERRUPTED at the step it was in.
   * Returns the notices for the banner.
   */
  async recover(): Promise<string[]> {
    const { attempts, events } = this.deps;
    const { notices: leftovers, gone } = await stopLeftoverFirstboots(
      attempts.get(),
      firstbootMark(this.deps.settings.stateDir),
      this.deps.recordsLost ?? false,
      async (attempt, event) => {
        (await events.writer(attempt)).append(event);
      },
      () => attempts.save(),
      this.deps.monotonic,
    );
    // A node.yaml being written when the installer was killed: its temp file holds the rendered config, secrets and all.
    const torn = await removeInterruptedWritesOf(this.deps.settings.nodeYaml);
    const interrupted = attempts.get().filter((a) => a.state === "running");
    const recovered: [AttemptRecord, AttemptEventLog][] = [];
    const said: string[] = [];
    for (const record of interrupted) {
      // A group already gone was kept on record as evidence (stopLeftoverFirstboots): it goes with the verdict's write.
      delete record.firstbootGroup;
      const log = await events.writer(record.attempt);
      // A step's success and the verdict reach the events before the record: a kill between the two leaves the events
      // ahead, and a firstboot that exited 0 must not be run again on the record's word.
      const onDisk = await events.outcomes(record.attempt, TAIL_LINES);
      // The record was last written before firstboot printed (its group, then its gate): its events have its output to the kill.
      if (record.firstbootTail.length === 0 && record.steps.some((s) => s.step === "firstboot")) record.firstbootTail = onDisk.lastLogLines;
      const finished = catchUp(record, onDisk.events);
      if (finished) {
        said.push(`attempt ${record.attempt} had finished (${finished.outcome}) when the installer stopped, before its record was written: recorded now`);
        recovered.push([record, log]);
        continue;
      }
      // A recheck's only step is readiness: killed before it was recorded, what is left is still the readiness wait, never firstboot.
      const { step, after } = standing(record, record.step ?? (record.kind === "recheck-readiness" ? "readiness" : null));
      const todo = step === "readiness" ? "recheck readiness" : "retry the install";
      // firstboot past its gate (its group recorded) and no longer running at this start: it exited, maybe 0, before
      // its exit could be recorded. No one knows which: a retry runs it again (it erases the OSD disks), so the operator checks first.
      const mayHaveFinished = step === "firstboot" && !after && gone.has(record.attempt);
      const verdict = this.#finish(record, log, {
        code: "INTERRUPTED",
        step,
        message: after
          ? `The installer stopped after ${after} succeeded, before ${step === "readiness" ? "readiness was checked" : `${step} began`} (killed or rebooted); ${todo}.`
          : mayHaveFinished
            ? "The installer stopped during firstboot (killed or rebooted), and firstboot was no longer running when it started again: firstboot may have finished, even successfully, before the installer stopped; its exit was not recorded. Before you retry the install, which runs firstboot again, check on the node whether firstboot completed (its last output is in this attempt's events, and the cloud's readiness endpoint says whether it is up)."
            : `The installer stopped during ${step ?? "the start of the attempt"} (killed or rebooted); ${todo}.`,
      });
      said.push(
        mayHaveFinished
          ? `attempt ${record.attempt} was interrupted at firstboot, which may have finished (it was no longer running); its verdict says ${verdict.next}: check the node before retrying`
          : `attempt ${record.attempt} was interrupted ${after ? `after ${after} succeeded` : `at ${step ?? "its start"}`}; its verdict says ${verdict.next}`,
      );
      recovered.push([record, log]);
    }
    try {
      await Promise.all(recovered.map(([, log]) => log.sync()));
      // Nothing recovered, nothing changed: a store write is two fsyncs before every start's first reply.
      if (recovered.length > 0) await attempts.save();
      await Promise.all(recovered.map(([record, log]) => events.close(record.attempt, log)));
    } catch (err) {
      if (!isStorageError(err)) throw err;
      for (const [record, log] of recovered) {
        void this.#settle(record, log).catch((e: unknown) => this.deps.log.error("recording an interrupted attempt failed", { attempt: record.attempt, error: String(e) }));
      }
    }
    return [...leftovers, ...torn.map((path) => `removed ${path}, a node.yaml an interrupted write left (it held the rendered config)`), ...said];
  }

  /**
   * Once no draft change is being written, admits and numbers the attempt synchronously (two concurrent calls cannot both pass), then
   * records it: its event log first, then the store. An attempt whose record cannot be written
   * does not start, and memory and disk are as before (INSUFFICIENT_STORAGE).
   */
  async start(kind: AttemptKind, startedBy: AttemptRecord["startedBy"], admitted: Admitted, origin?: Origin, ifMatch?: string): Promise<AttemptRecord> {
    const { draft, events } = this.deps;
    // The stop this attempt answers to: one that comes while it is being recorded leaves it for the next start to interrupt.
    const shutdown = this.#abort.signal;
    // An install takes the draft on disk: a change still being written is waited for, one rolled back is never taken.
    while (kind === "install" && draft.saving()) await draft.settled();
    const attempts = this.deps.attempts.get();
    const refused = refusal(
      kind === "install"
        ? { action: kind, attempts, draft: draft.analysis(), blockers: this.deps.blockers() }
        : { action: kind, attempts, blockers: this.deps.stopping?.() ? [stoppingBlocker("recheck readiness")] : [] },
    );
    if (refused) throw refused;
    // Checked in the same tick as the record is made: the draft installed is the one the person reviewed.
    if (ifMatch !== undefined) draft.requireMatch(ifMatch);
    const draftRecord = draft.record();
    const drafted: AttemptRecord["config"] =
      draftRecord.source === "yaml" ? { source: "yaml", yaml: this.deps.redactor.text(draftRecord.yaml) } : { source: "structured", config: redactDraft(draftRecord.config) };
    // A recheck waits for what its install installed: that install's config, payload and endpoints, whatever the draft says since.
    const installed = kind === "install" ? undefined : attempts.filter((a) => a.kind === "install").at(-1);
    const record: AttemptRecord = {
      attempt: attempts.length + 1,
      kind,
      startedBy,
      state: "running",
      step: null,
      startedAt: this.deps.now().toISOString(),
      steps: [],
      config: installed?.config ?? drafted,
      payloadVersion: installed ? installed.payloadVersion : this.deps.payloadVersion(),
      endpoints: installed ? installed.endpoints : endpointsOf(draft.analysis().draft, this.deps.settings.readinessUrl),
      firstbootTail: [],
      readinessHistory: [],
    };
    const draftSince = installed && JSON.stringify(installed.config) !== JSON.stringify(drafted) ? installed.attempt : undefined;
    attempts.push(record);
    const undo = admitted(record.attempt);
    const changed = draftSince === undefined ? "" : `; the draft changed since attempt ${draftSince} installed it: this recheck waits for what attempt ${draftSince} installed, and the draft's changes are not installed`;
    const started: NewEvent = {
      type: "attempt.started",
      time: record.startedAt,
      level: changed ? "warn" : "info",
      message: `${kind === "install" ? "install" : "readiness recheck"} attempt ${record.attempt} started by ${startedBy === "person" ? "a person" : "the unattended node.yaml"}${changed}`,
      data: { kind, startedBy },
    };
    let log: AttemptEventLog | undefined;
    try {
      log = await events.writer(record.attempt, true);
      log.append(started);
      await log.sync();
      await this.deps.attempts.save();
    } catch (err) {
      attempts.splice(attempts.indexOf(record), 1);
      undo?.();
      await events.discard(record.attempt, log);
      throw err;
    }
    journal(this.deps.log, record.attempt, started, origin);
    if (shutdown.aborted) return record;
    this.#running = this.#run(record, log, shutdown).catch((err: unknown) => this.deps.log.error("attempt runner failed", { attempt: record.attempt, error: String(err) }));
    return record;
  }

  async #run(record: AttemptRecord, log: AttemptEventLog, shutdown: AbortSignal): Promise<void> {
    // A write the state dir refuses mid-attempt stops the step at once (firstboot included).
    const storage = new AbortController();
    const stopListening = log.onFailure((err) => storage.abort(err));
    const signal = AbortSignal.any([shutdown, storage.signal]);
    let current: Step | null = null;
    try {
      for (const step of STEPS_OF[record.kind]) {
        current = step;
        await this.#step(record, log, step, signal, shutdown);
      }
      this.#finish(record, log, { code: null, step: current, message: record.kind === "install" ? "The node is installed and the cloud reports READY." : "The cloud reports READY." });
    } catch (err) {
      if (shutdown.aborted) return;
      // A step whose success is on record is done: what failed after it is the next step's to say.
      const { step } = standing(record, current);
      // A step that failed its own way once the event log was refused (its write went on, and failed too) stopped for the log's cause.
      const refused = isStorageError(err) ? err : storage.signal.aborted && isStorageError(storage.signal.reason) ? storage.signal.reason : undefined;
      const failure = refused ? this.#stateWriteFailure(record, step, refused) : err instanceof StepFailure ? err : new StepFailure(failureCodeOf(step), `${step ?? "attempt"} failed: ${(err as Error).message}`);
      this.#finish(record, log, { code: failure.code, step, message: failure.message, next: failure.next, checks: failure.checks });
    } finally {
      stopListening();
    }
    await this.#settle(record, log, shutdown);
  }

  #stateWriteFailure(record: AttemptRecord, step: Step | null, err: InstallerError): StepFailure {
    const { why, remedy } = storageFault(err);
    // SPEC §6 says retryInstall; but once this attempt's firstboot has exited 0, a retry would run it again (it erases
    // the OSD disks): what is left to do is the readiness wait, as after a kill at that point.
    // A recheck runs only after its install's firstboot ran.
    const firstbootRan = record.kind === "recheck-readiness" || record.steps.some((s) => s.step === "firstboot" && s.state === "succeeded");
    return new StepFailure(
      "STATE_WRITE_FAILED",
      `${why}, so the attempt stopped during ${step ?? "its start"}. ${remedy[0]!.toUpperCase()}${remedy.slice(1)}, then ${firstbootRan ? "recheck readiness (firstboot has run)" : "retry the install"}.`,
      firstbootRan ? "recheckReadiness" : "retryInstall",
    );
  }

  /**
   * A finished attempt's record and events reach the disk as soon as it takes them: while the
   * state dir refuses writes the verdict lives in memory (the phase is already failed) and this
   * tries again, backing off, until it is written or the service stops. Then its log closes.
   */
  async #settle(record: AttemptRecord, log: AttemptEventLog, shutdown = this.#abort.signal): Promise<void> {
    for (let delay = 500; !shutdown.aborted; delay = Math.min(delay * 2, 10_000)) {
      try {
        await log.sync();
        await this.deps.attempts.save();
        return this.deps.events.close(record.attempt, log);
      } catch (err) {
        if (!isStorageError(err)) throw err;
        if (delay === 500) this.deps.log.warn("attempt not recorded yet: the state dir refuses writes; retrying", { attempt: record.attempt, error: err.detail });
        await sleep(delay, undefined, { signal: shutdown }).catch(() => undefined);
      }
    }
  }

  async #step(record: AttemptRecord, log: AttemptEventLog, step: Step, signal: AbortSignal, shutdown: AbortSignal): Promise<void> {
    const { now, redactor } = this.deps;
    const started = now().getTime();
    // A duration by the monotonic clock: a time sync that steps the wall clock (firstboot starts one) during the step
    // would make it years long, or negative.
    const clock = this.deps.monotonic ?? monotonic;
    const startedAt = clock();
    record.step = step;
    const deadline = stepDeadline(step, this.deps.settings, started);
    // The same end by the steps' monotonic clock, read with the wall clock: the wait is measured by it, and a time sync
    // that steps the wall clock before the step reaches its wait must not move that end.
    const deadlineAt = deadline === undefined ? undefined : clock() + (deadline - started);
    const stepRecord: StepRecord = { step, state: "running", startedAt: new Date(started).toISOString(), ...(deadline ? { deadline: new Date(deadline).toISOString() } : {}) };
    record.steps.push(stepRecord);
    // The store learns of the step before any client does: a kill between the two is recovered at this step.
    await this.deps.attempts.save();
    this.#append(record, log, { type: "step.started", step, level: "info", message: `${step} started`, ...(stepRecord.deadline ? { data: { deadline: stepRecord.deadline } } : {}) });
    await log.sync();
    let succeededEarly = false;
    const succeed = () => {
      Object.assign(stepRecord, { state: "succeeded", finishedAt: now().toISOString() });
      this.#append(record, log, { type: "step.finished", step, level: "info", message: `${step} succeeded`, data: { outcome: "succeeded", durationMs: Math.round(clock() - startedAt) } });
    };
    const ctx: StepContext = {
      emit: (event: Omit<NewEvent, "step">) => this.#append(record, log, event, step),
      backlogged: () => (log.backlog >= BACKLOG_LIMIT ? log.flush().catch(() => undefined) : undefined),
      redactor,
      now,
      ...(this.deps.monotonic ? { monotonic: this.deps.monotonic } : {}),
      signal,
      groupStopped: (stopped) => {
        if (!shutdown.aborted) return;
        const { processes, killedAfterMs, survived } = stopped;
        // Those SIGKILL has not ended are not counted as stopped (docs/service.md): named apart.
        this.#stopped.firstboot = { processes: processes.length - (survived?.length ?? 0), ...(killedAfterMs ? { killedAfterMs } : {}), ...(survived?.length ? { survived: survived.map((p) => p.pid) } : {}) };
      },
      succeeded: async () => {
        succeed();
        succeededEarly = true;
        // Its event first, then the record: the next start reads the record.
        await log.sync();
        await this.deps.attempts.save();
      },
    };
    try {
      await runStep(step, ctx, record, { ...this.deps, persist: () => this.deps.attempts.save(), deadline: deadlineAt });
      // A stop after the step's success was recorded stops the attempt between steps; a refused write goes on to the next step, which records it.
      if (signal.aborted && !(succeededEarly && !shutdown.aborted)) throw signal.reason;
    } catch (err) {
      // `shutdown`, not this.#abort: a stop puts a new controller there before this catch runs, and the stop is no failure.
      if (shutdown.aborted || succeededEarly) throw err;
      const message = redactor.text(err instanceof Error ? err.message : String(err));
      Object.assign(stepRecord, { state: "failed", finishedAt: now().toISOString(), message });
      this.#append(record, log, { type: "step.finished", step, level: "error", message: `${step} failed: ${message}`, data: { outcome: "failed", durationMs: Math.round(clock() - startedAt) } });
      throw err;
    }
    if (!succeededEarly) succeed();
  }

  /**
   * The verdict, into the attempt's events; the record takes it (what /status and GET /install/verdict read) once that
   * event is written, in the same tick its followers hear it: a kill -9 right after a client was told the attempt
   * ended finds the verdict on disk, and the next start keeps that word, not INTERRUPTED. While the state dir refuses
   * the write the record takes it at once (the phase says the attempt ended) and #settle writes it once it can.
   */
  #finish(
    record: AttemptRecord,
    log: AttemptEventLog,
    outcome: { code: FailureCode | null; step: Step | null; message: string; next?: Verdict["next"]; checks?: Verdict["checks"] },
  ): Verdict {
    const message = this.deps.redactor.text(outcome.message);
    const verdict: Verdict = {
      attempt: record.attempt,
      kind: record.kind,
      outcome: outcome.code === null ? "succeeded" : "failed",
      step: outcome.step,
      code: outcome.code,
      message,
      next: outcome.code === null ? "none" : (outcome.next ?? nextAction(outcome.code, outcome.step)),
      ...(outcome.checks ? { checks: outcome.checks } : {}),
    };
    const finishedAt = this.deps.now().toISOString();
    // Called once: the first of the two, written or refused, stops both.
    const ended = () => {
      stopWatching();
      record.finishedAt = finishedAt;
      for (const step of record.steps) {
        if (step.state === "running") Object.assign(step, { state: "failed", finishedAt, message });
      }
      record.verdict = verdict;
      record.state = verdict.outcome;
    };
    const unwritten = log.onFailure(ended);
    const unsubscribe = log.subscribe((batch) => (batch.includes(event) ? ended() : undefined));
    const stopWatching = () => {
      unsubscribe();
      unwritten();
    };
    const event = this.#append(record, log, {
      type: "attempt.finished",
      time: finishedAt,
      ...(outcome.step ? { step: outcome.step } : {}),
      level: outcome.code === null ? "info" : "error",
      message,
      data: { verdict },
    });
    return verdict;
  }

  /** Into the attempt's events, and its milestones into the service log. */
  #append(record: AttemptRecord, log: AttemptEventLog, event: NewEvent, step = event.step): InstallEvent {
    const full = log.append(event, step);
    journal(this.deps.log, record.attempt, event, undefined, step);
    return full;
  }

  /** Stops a running attempt where it is (firstboot's whole group included); the next start marks it INTERRUPTED. */
  async shutdown(): Promise<Stopped> {
    this.#stopped = {};
    const running = this.deps.attempts.get().find((a) => a.state === "running");
    this.#abort.abort(new Error("installer stopping"));
    this.#abort = new AbortController();
    await this.#running;
    await this.deps.events.sync();
    return { ...(running ? { attempt: running.attempt } : {}), ...this.#stopped };
  }
}

/**
 * `record` (running) brought up to what its events on disk say: each running step whose step.finished succeeded is
 * there is succeeded, and the verdict of an attempt.finished there is the record's. Returns that verdict, if any.
 */
function catchUp(record: AttemptRecord, outcomes: InstallEvent[]): Verdict | undefined {
  for (const event of outcomes) {
    const step = record.steps.find((s) => s.step === event.step && s.state === "running");
    if (event.type === "step.finished" && step && (event.data as { outcome?: unknown } | undefined)?.outcome === "succeeded") {
      Object.assign(step, { state: "succeeded", finishedAt: event.time });
    }
  }
  const finished = outcomes.filter((e) => e.type === "attempt.finished").at(-1);
  const verdict = (finished?.data as { verdict?: Verdict } | undefined)?.verdict;
  if (!finished || !isVerdictOf(record, verdict)) return undefined;
  record.state = verdict.outcome;
  record.finishedAt = finished.time;
  record.verdict = verdict;
  for (const step of record.steps) {
    if (step.state === "running") Object.assign(step, { state: "failed", finishedAt: finished.time, message: verdict.message });
  }
  return verdict;
}

/** A verdict as this attempt's runner writes it into its attempt.finished event. */
function isVerdictOf(record: AttemptRecord, verdict: Verdict | undefined): verdict is Verdict {
  if (typeof verdict !== "object" || verdict === null) return false;
  return verdict.attempt === record.attempt && verdict.kind === record.kind && (verdict.outcome === "succeeded" || verdict.outcome === "failed") && typeof verdict.message === "string" && typeof verdict.next === "string";
}

/**
 * Where an attempt stands, for its verdict: the step it was in, or, when that step's success is on record (firstboot
 * exited 0 and what it left running was being stopped), the step after it, with `after` naming the one that succeeded.
 */
function standing(record: AttemptRecord, current: Step | null): { step: Step | null; after?: Step } {
  const last = record.steps.at(-1);
  if (current === null || last?.step !== current || last.state !== "succeeded") return { step: current };
  const steps = STEPS_OF[record.kind];
  const next = steps[steps.indexOf(current) + 1];
  return next ? { step: next, after: current } : { step: current };
}
