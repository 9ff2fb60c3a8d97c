import { capText } from "../../core/common/cut-text.ts";
import { HttpClientError, nothingSent, OutOfFilesError } from "../../core/http/client.ts";
import { ApiProblem, PROBLEM_CAPS, type Status, type Verdict, wrongAnswer } from "./api.ts";
import { type Connected, changedList, planChanges, refusal } from "./connect.ts";
import { type FleetOutput, type Level, MESSAGE_BYTES } from "./output/index.ts";
import type { FleetState } from "./state.ts";
import { followAttempt } from "./watch.ts";

type OutcomeKind = "installed" | "failed" | "stopped" | "unreachable" | "refused";

export interface Outcome {
  kind: OutcomeKind;
  detail: string;
  /** The node's latest attempt, 0 when none. */
  attempt: number;
  startedAt?: number;
  endedAt?: number;
}

export interface RunContext {
  out: FleetOutput;
  state: FleetState;
  /** Readiness rechecks each node may run (--rechecks). */
  rechecks: number;
  /** Ctrl-C: stop watching; nothing new is started after it. */
  signal: AbortSignal;
}

/**
 * How a node's run ends for the error its turn met: its outcome's kind and words; undefined for an error of the fleet's
 * own (a bug), thrown on.
 */
export function outcomeOf(error: unknown): { kind: Exclude<OutcomeKind, "installed">; detail: string } | undefined {
  // Not the node's doing: it was never asked to install (its start not recorded), or no connection could be opened for
  // want of a file on this machine (nothing was sent); a run again goes on from where the node is.
  if (error instanceof StartNotRecorded) return { kind: "stopped", detail: error.message };
  if (error instanceof OutOfFilesError) {
    const raise = error.code === "EMFILE" ? "ulimit -n" : "sysctl fs.file-max";
    return { kind: "stopped", detail: `${error.message}: raise its limit (${raise}), then run the fleet again: it goes on from where this node is` };
  }
  const refused = refusal(error);
  if (refused) return { kind: "refused", detail: refused };
  // A node that answers what no installer does is reachable: it failed.
  if (wrongAnswer(error) || error instanceof NodeFailed || error instanceof ApiProblem) return { kind: "failed", detail: (error as Error).message };
  if (error instanceof HttpClientError) return { kind: "unreachable", detail: error.message };
  return undefined;
}

/** The node cannot go on, for a reason its installer gave. */
class NodeFailed extends Error {}

/** Its install not sent: its start's mark could not be written to the state file (the error's message says why, and what to do). */
class StartNotRecorded extends Error {
  constructor(stateFile: Error) {
    super(`not started: its install was not sent, as its start could not be recorded first: ${stateFile.message}`);
  }
}

/** The node was installed by someone else since the status the run went by: its run goes by this one instead. */
class InstalledMeanwhile extends Error {
  constructor(readonly status: Status) {
    super("installed meanwhile");
  }
}

/**
 * A failed verdict as the run's note and the summary's detail say it: its code, its message, and what its next says to
 * do, the message cut to half of what is shown (a node's text may be megabytes) so that the next is never cut off.
 */
const failureOf = (v: Verdict) => `${v.code ?? "FAILED"}: ${capText(v.message, MESSAGE_BYTES / 2).text} (next: ${v.next})`;

/**
 * An attempt interrupted at firstboot (the installer killed as it ran): firstboot may have run to its end, and a retry
 * runs it again (it erases disks). Its verdict says retryInstall (SPEC §6), but the fleet never starts that by itself.
 */
const firstbootMayHaveRun = (v: Verdict) => v.outcome === "failed" && v.code === "INTERRUPTED" && v.step === "firstboot";

/** After such a verdict's message (cut so that this stays within what the fleet shows of a message): what to do. */
const FIRSTBOOT_RETRY_BY_HAND =
  "not started again by the fleet: firstboot may have run to its end, and an install runs it again. Check the node as its message says; if it must be installed again, start that install on the node (its console, or POST /v1/installer/install with curl), then run the fleet again: it follows that attempt";

/** A status read ahead is the node's status at its turn if read this recently; an older one is read again. */
const AHEAD_FRESH_MS = 5_000;

/**
 * One node's part of the install (SPEC §10.3): its draft, its attempt followed to the verdict, rechecks while the
 * verdict asks for one. What can be done before its turn is done by `prepare` (its status read, its draft written);
 * its install is asked with the draft's ETag (`If-Match`), so that a draft changed in between is never installed.
 */
export class NodeRun {
  #attempt = 0;
  #failure = "";
  /** Its status read before its turn (performance.now() then; the fleet's checks' at first), undefined if that read failed. */
  #ahead?: { at: number; status: Status | undefined };
  /** Its draft written by this run: not written again. */
  #drafted = false;
  #verdict?: Verdict;
  /** Its start's mark on its way to disk: undefined once there, else the state file's error. */
  #marking?: Promise<Error | undefined>;
  /** Its POST /install went out: a mark is kept when its answer was lost (the node may have started the attempt). */
  #sent = false;
  /** `run`'s caller's, called once, as soon as this run's install (or recheck) attempt was started. */
  #onStarted?: () => void;

  constructor(
    private readonly c: Connected,
    private readonly ctx: RunContext,
    private readonly joinToken: string | undefined,
    private readonly options: { freshMs?: number } = {},
  ) {
    if (c.statusAt !== undefined) this.#ahead = { at: c.statusAt, status: c.status };
  }

  /**
   * Before the node's turn: its status (the one last read, when recent; else asked for) and, when it is configuring,
   * its draft written. Nothing else is changed (its install waits for its turn); what fails here is done again at its
   * turn, where a failure counts.
   */
  async prepare(): Promise<void> {
    let status = this.#recent();
    if (!status) {
      const at = performance.now();
      status = await this.c.api.status().catch(() => undefined);
      this.#ahead = { at, status };
    }
    if (status?.phase === "configuring" && !this.ctx.signal.aborted) {
      // Its start's mark with its draft: on disk long before its turn, so that the turn's POST /install waits for no write.
      void this.#mark();
      await this.#putDraft().catch(() => this.#unmark());
    }
  }

  /** The mark that this run may start an install on the node (SPEC §10.5's resume), on its way to disk; begun once. */
  #mark(): Promise<Error | undefined> {
    // A write the disk refuses was said (onTrouble); the install waits for #marked.
    return (this.#marking ??= this.ctx.state.set(this.c.node.name, { starting: true }).then(
      () => undefined,
      (error: Error) => error,
    ));
  }

  /**
   * At its turn, before its POST /install: the mark on disk, its write done again (and waited for) when the one begun
   * before (ahead of the turn, or beside its draft's write now) failed. Undefined once on disk, else the state file's error.
   */
  async #marked(): Promise<Error | undefined> {
    if ((await this.#mark()) === undefined) return undefined;
    this.#marking = undefined;
    return this.#mark();
  }

  /**
   * This run is over, or will not start: a mark for an install it never sent is taken off (it was stopped before its
   * turn, or its turn found the node installing or installed by someone else). Left, it would have a later run take
   * someone else's failed attempt for one this fleet started, and not retry it.
   */
  leave(): void {
    if (this.#marking !== undefined && !this.#sent) this.#unmark();
  }

  /** The mark taken off (this run started nothing, or recorded the attempt it started), with `change`. */
  #unmark(change: Parameters<FleetState["set"]>[1] = {}): void {
    this.#marking = undefined;
    this.#record({ ...change, starting: undefined });
  }

  note(level: Level, message: string): void {
    this.ctx.out.note(this.c.node.name, level, message);
  }

  async run(onStarted?: () => void): Promise<Outcome> {
    this.#onStarted = onStarted;
    const startedAt = Date.now();
    const end = (kind: OutcomeKind, detail: string): Outcome => {
      this.ctx.out.change(this.c.node.name, { phase: kind === "installed" ? "done" : kind });
      return { kind, detail, attempt: this.#attempt, startedAt, endedAt: Date.now() };
    };
    try {
      return (await this.#driveOnce()) ? end("installed", "installed") : end("failed", this.#failure);
    } catch (error) {
      if (this.ctx.signal.aborted) throw error;
      const ended = outcomeOf(error);
      if (!ended) throw error;
      this.note("error", ended.kind === "failed" || ended.kind === "stopped" ? ended.detail : `${ended.kind}: ${ended.detail}`);
      return end(ended.kind, ended.detail);
    } finally {
      this.leave();
    }
  }

  /** The status read last (ahead of the turn, or by the checks), when it came and is recent. */
  #recent(): Status | undefined {
    const ahead = this.#ahead;
    return ahead?.status && performance.now() - ahead.at < (this.options.freshMs ?? AHEAD_FRESH_MS) ? ahead.status : undefined;
  }

  /** The node's status now: the one read last when it is recent, else asked for. */
  #status(): Promise<Status> {
    const recent = this.#recent();
    return recent ? Promise.resolve(recent) : this.c.api.status();
  }

  /** #drive, and once more from the node's status now when it was installed meanwhile (a status read before is old). */
  async #driveOnce(): Promise<boolean> {
    try {
      return await this.#drive();
    } catch (error) {
      if (!(error instanceof InstalledMeanwhile)) throw error;
      this.#ahead = { at: performance.now(), status: error.status };
      // What it was installed with, for the plan's differences from it.
      const { view, etag } = await this.c.api.config();
      this.c.draft = view;
      this.c.etag = etag;
      return this.#drive();
    }
  }

  /** True once installed; false with #failure set when a verdict says it failed for good. */
  async #drive(): Promise<boolean> {
    const { api, node } = this.c;
    const status = await this.#status();
    this.#attempt = status.attempt;
    const record = this.ctx.state.node(node.name);
    if (status.phase === "done") {
      const changed = planChanges({ ...this.c, status });
      this.note(changed.length > 0 ? "warn" : "info", changed.length > 0 ? `installed already; the plan differs at ${changedList(changed)}: not re-applied (an installed node keeps its config)` : "installed already");
      return true;
    }
    let verdict: Verdict | undefined;
    // On this machine's clock: the node's may be hours off.
    const since = status.startedAt ? Date.parse(status.startedAt) + api.clockBehindMs : undefined;
    if (status.phase === "installing") {
      const from = record.attempt === status.attempt ? (record.lastSeq ?? 0) : 0;
      this.note("info", `attempt ${status.attempt} is running: following it${from > 0 ? ` after event ${from}` : ""}`);
      verdict = await this.#follow(status.attempt, from, since);
    } else if (status.phase === "failed") {
      if (record.attempt === status.attempt && record.outcome === undefined) {
        this.note("info", `attempt ${status.attempt} ended while the fleet was away: reading its last events`);
        verdict = await this.#follow(status.attempt, record.lastSeq ?? 0, since);
      } else {
        const last = await api.verdict();
        // The node's answers disagree (a node that lies): it is not counted installed on its verdict's word.
        if (last && last.attempt === status.attempt && last.outcome === "succeeded") {
          throw new HttpClientError("schema", api.where, `${api.where} gave an answer that is not its installer's: its status says attempt ${status.attempt} failed, its verdict that attempt ${last.attempt} succeeded`);
        }
        // A recheck is of the attempt that failed: another's (a verdict of another attempt) is none asked of this one.
        if (last?.next === "recheckReadiness" && last.attempt === status.attempt) verdict = last;
        else if (last && last.attempt === status.attempt && firstbootMayHaveRun(last)) {
          // Whoever started it: shown as failed below, never retried (the loop starts an install only without a verdict).
          this.#unmark({ attempt: last.attempt, outcome: last.outcome });
          this.#verdict = last;
          verdict = last;
        } else if (last && last.attempt === status.attempt && record.starting && status.attempt > (record.attempt ?? 0)) {
          // An attempt the fleet started (a run killed as it sent POST /install, before it recorded the attempt)
          // that failed with nobody watching is shown, not retried: a retry runs firstboot again on a node nobody
          // has looked at. (One someone else started is retried, as a failure the fleet showed is.)
          this.#unmark({ attempt: last.attempt, outcome: last.outcome });
          this.#failure = failureOf(last);
          this.note("error", `attempt ${last.attempt}, which a run of this fleet started as it stopped, failed with no run following it: ${this.#failure}; not retried now: look at the node, then run the fleet again to retry it`);
          this.#verdict = last;
          return false;
        }
      }
    }
    let rechecks = this.ctx.rechecks;
    for (;;) {
      verdict ??= await this.#start("install");
      if (verdict.outcome === "succeeded") return true;
      if (verdict.next === "recheckReadiness" && rechecks > 0) {
        rechecks -= 1;
        this.note("warn", `${verdict.code}: ${verdict.message} — rechecking readiness (${this.ctx.rechecks - rechecks} of ${this.ctx.rechecks})`);
        verdict = await this.#start("recheck");
        continue;
      }
      if (firstbootMayHaveRun(verdict)) {
        this.#failure = `${failureOf(verdict)}; ${FIRSTBOOT_RETRY_BY_HAND}`;
        this.note("error", `attempt ${verdict.attempt} failed: ${this.#failure}`);
        return false;
      }
      this.#failure = failureOf(verdict);
      this.note("error", `attempt ${verdict.attempt} failed: ${this.#failure}`);
      // An installer gives one check per name; a node that lies may give thousands: said as its field errors are, capped.
      const failedChecks = (verdict.checks ?? []).filter((c) => c.code);
      for (const check of failedChecks.slice(0, PROBLEM_CAPS.items)) this.note("error", `join check ${check.name}: ${check.code}: ${check.detail}`);
      const more = failedChecks.length - PROBLEM_CAPS.items;
      if (more > 0) this.note("error", `and ${more} more failed join checks (GET /v1/installer/install/verdict on the node lists them all)`);
      return false;
    }
  }

  /**
   * Records a change of this node's in the state file, waited for by nothing between two requests to a node: the
   * node's own status is what a later run goes by. A failed write shows at the fleet's end, whose flush writes the
   * same document again.
   */
  #record(change: Parameters<FleetState["set"]>[1]): void {
    void this.ctx.state.set(this.c.node.name, change).catch(() => undefined);
  }

  async #putDraft(): Promise<void> {
    const { api, node } = this.c;
    const written = this.ctx.state.node(node.name).etag;
    if (written && written !== this.c.etag) this.note("warn", "its draft was changed since the fleet wrote it: the plan's draft replaces it");
    try {
      const { etag } = await api.putConfig(node.draft(this.joinToken), this.c.etag);
      this.c.etag = etag;
      this.#drafted = true;
      this.#record({ etag });
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "PRECONDITION_FAILED") {
        throw new NodeFailed("its draft was changed by someone else while the fleet ran (412 on If-Match): look at GET /config on it, then run the fleet again");
      }
      throw error;
    }
    this.note("info", `draft written (${node.role === "init" ? "hyperconverged-init" : "hyperconverged-join"})`);
  }

  async #start(kind: "install" | "recheck"): Promise<Verdict> {
    const { api } = this.c;
    this.ctx.signal.throwIfAborted();
    let started: { attempt: number };
    this.#verdict = undefined;
    try {
      // On disk before the request (written with the draft, ahead of the turn or beside its write now), or no request:
      // a run killed once the node has it leaves the mark, and the next run shows that attempt's failure instead of
      // retrying it unseen. A recheck runs readiness alone (never firstboot): it needs none.
      if (kind === "install") {
        void this.#mark();
        if (!this.#drafted) {
          await this.#putDraft().catch((error: unknown) => {
            this.#unmark();
            throw error;
          });
        }
        const unrecorded = await this.#marked();
        if (unrecorded) throw new StartNotRecorded(unrecorded);
      }
      this.ctx.signal.throwIfAborted();
      if (kind === "install") this.#sent = true;
      started = kind === "install" ? await api.install(this.c.etag) : await api.recheck();
    } catch (error) {
      if (!(error instanceof ApiProblem || error instanceof HttpClientError)) throw error;
      // Refused, or never sent (no connection, another certificate), or another's attempt runs (recorded below): this
      // run started nothing. A request whose answer was lost may have started one: its mark stays.
      if (error instanceof ApiProblem || nothingSent(error)) this.#unmark();
      if (error instanceof ApiProblem && error.code === "INVALID_CONFIG") {
        throw new NodeFailed(`the node refused its draft: ${error.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`);
      }
      if (error instanceof ApiProblem && error.code === "PRECONDITION_FAILED") {
        throw new NodeFailed("its draft was changed by someone else after the fleet wrote it (412 on If-Match): look at GET /config on it, then run the fleet again");
      }
      if (error instanceof ApiProblem && error.code === "INSTALL_BLOCKED") {
        throw new NodeFailed(`blocked: ${error.blockers.map((b) => `${b.code}: ${b.detail}`).join("; ")}`);
      }
      // Someone else's attempt (one begun since the status the run went by: its draft or install refused with 409),
      // or ours whose answer was lost: follow whatever runs; a node installed meanwhile is gone by as installed.
      const status = await api.status();
      if (status.phase === "done") throw new InstalledMeanwhile(status);
      if (status.phase !== "installing") throw error;
      started = status;
    }
    this.#unmark({ attempt: started.attempt, lastSeq: 0, outcome: undefined });
    this.note("info", `${kind === "install" ? "install" : "readiness recheck"} attempt ${started.attempt} started`);
    const onStarted = this.#onStarted;
    this.#onStarted = undefined;
    onStarted?.();
    return this.#follow(started.attempt, 0, Date.now());
  }

  async #follow(attempt: number, from: number, since?: number): Promise<Verdict> {
    const name = this.c.node.name;
    this.#attempt = attempt;
    this.ctx.out.change(name, { phase: "installing", attempt, step: "", ...(since ? { since } : {}) });
    const verdict = await followAttempt(this.c.api, attempt, from, {
      signal: this.ctx.signal,
      onEvent: (event) => {
        this.ctx.out.event(name, event);
        this.ctx.state.seen(name, event.seq);
      },
      onBreak: (reason, seq) => this.note("warn", `the event stream broke (${reason}); resuming after event ${seq}`),
      onQuiet: (ms, seq) => this.note("warn", `no event for ${Math.round(ms / 60_000)} min (attempt ${attempt}, after event ${seq}): its step may be long, or the node stuck; following on (Ctrl-C stops watching, not the install)`),
    });
    this.#record({ attempt, outcome: verdict.outcome });
    this.ctx.out.change(name, { phase: verdict.outcome === "succeeded" ? "done" : "failed" });
    this.#verdict = verdict;
    return verdict;
  }

  /**
   * The verdict the run ended with, as the installer gave it (in attempt.finished, or asked for); undefined when it
   * ended otherwise (installed before, unreachable or stopped in an attempt it started).
   */
  get verdict(): Verdict | undefined {
    return this.#verdict;
  }
}

export function runNode(c: Connected, ctx: RunContext, joinToken?: string): Promise<Outcome> {
  return new NodeRun(c, ctx, joinToken).run();
}
