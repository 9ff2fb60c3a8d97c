import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { capText, formatBytes } from "../../common/cut-text.ts";
import { printableJson } from "../../common/printable.ts";
import { privateKeyLines, REDACTED } from "../../secrets/index.ts";
import { isStorageError } from "../../fs/storage-error.ts";
import { GRACE_MS, describeStopped, describeSurvivors, killMarked, markedEnv, startTimeOf, stopGroup, stopRecordedGroup, type StoppedGroup } from "../../process/group.ts";
import type { Clock } from "../../common/clock.ts";
import type { NewEvent } from "../events.ts";
import type { AttemptRecord } from "../../state/records.ts";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";
import { LineSplitter } from "./line-splitter.ts";

/** The lines of firstboot's output a report keeps (its last). */
export const TAIL_LINES = 50;
export const MAX_LINE_BYTES = 16 * 1024;
/** Kept past the cut until redaction, so a secret that straddles the cut is redacted whole, never shown in part. */
const REDACTION_MARGIN = 1024;
/** What one attempt's firstboot output may take in its event log; what it prints past either is counted, not kept. */
export interface OutputLimit {
  lines: number;
  bytes: number;
}
/**
 * A rescue image's state dir is RAM: a firstboot that prints without end (a loop, `yes`) must not fill it, failing the
 * attempt with STATE_WRITE_FAILED and every one after it. Far above what a busy firstboot prints (a verbose deploy
 * prints a few MiB). The bytes are the events' as the event log writes them (an escaped control character is six).
 */
export const OUTPUT_LIMIT: OutputLimit = { lines: 500_000, bytes: 64 * 1024 * 1024 };
/** After the group is stopped, how long output may still take to arrive before the pipes are closed (something outside the group may hold them). */
const DRAIN_MS = 2000;
/** Waits for a line on stdin, then becomes firstboot ($0) with the node.yaml path; stdin closed without one: firstboot never starts. */
const GATE = 'read -r go && exec "$0" "$@"';

interface FirstbootRun {
  executable: string;
  nodeYamlPath: string;
  /** This state dir's firstboot mark (core/process/group.ts), carried by every process firstboot starts. */
  mark: string;
  record: Pick<AttemptRecord, "attempt" | "firstbootTail" | "firstbootGroup">;
  /** Writes the store: the group is on disk before firstboot gets going, for a crash to find. */
  persist: () => Promise<void>;
  outputLimit?: OutputLimit;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/**
 * Runs the firstboot executable with the node.yaml path in a process group of its own; every output
 * line is an event; a non-zero exit fails. The step ends when firstboot exits (an exit 0 is recorded as
 * the step's success at once); what it left running is stopped then, and so is the whole group when the
 * installer stops.
 */
export async function runFirstboot(ctx: StepContext, { executable, nodeYamlPath, mark, record, persist, outputLimit = OUTPUT_LIMIT }: FirstbootRun): Promise<void> {
  // Whatever carries the mark now is no attempt's of this installer (each stops its own before it ends): never two at once.
  // A stop that comes meanwhile ends the wait for one stuck in the kernel, and the step: no firstboot starts under a stop.
  const stale = await killMarked(mark, ctx.monotonic, { signal: ctx.signal });
  if (stale.processes.length > 0) ctx.emit(stoppedEvent(stale, "an earlier firstboot left running"));
  if (ctx.signal.aborted) throw ctx.signal.reason;
  // A process SIGKILL has not ended yet runs no instruction of its own any more, but what it waits on (a write, a mount) may
  // still complete, and a new firstboot would meet it half done: it is not started beside it.
  if (stale.survived?.length) {
    const which = stale.survived.length === 1 ? "a process of an earlier firstboot is" : `${stale.survived.length} processes of an earlier firstboot are`;
    throw new StepFailure(
      "FIRSTBOOT_FAILED",
      `firstboot was not started: ${which} still there after SIGKILL: ${describeSurvivors(stale.survived)}; two firstboots would run at once. Retry the install once ${stale.survived.length === 1 ? "it has" : "they have"} ended (\`ps -o pid,stat,wchan -p ${stale.survived.map((p) => p.pid).join(",")}\`), or reboot the node.`,
    );
  }
  // A gate: firstboot starts only once its group is on disk, so no crash can leave one unrecorded.
  const child = spawn("/bin/sh", ["-c", GATE, executable, nodeYamlPath], {
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
    env: { ...process.env, ...markedEnv(mark, record.attempt) },
  });
  child.stdin.on("error", () => undefined);
  const exited = new Promise<Exit>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const kept = new OutputKept(ctx, outputLimit, record.firstbootTail);
  const output = Promise.all([follow(ctx, child.stdout, "stdout", record.firstbootTail, kept), follow(ctx, child.stderr, "stderr", record.firstbootTail, kept)]);
  const pid = child.pid;
  let stopping!: () => void;
  const abort = new Promise<undefined>((resolve) => (stopping = () => resolve(undefined)));
  ctx.signal.addEventListener("abort", stopping, { once: true });
  if (ctx.signal.aborted) stopping();
  let exit: Exit | undefined;
  let recorded = false;
  /** firstboot exited 0 by itself: its success is recorded, whatever stop came meanwhile (a retry would run it again). */
  const succeeded = async () => {
    // The output already in the pipes is read first (one turn of the loop), so that its lines come before the success.
    await Promise.race([output, new Promise((resolve) => setImmediate(resolve))]);
    await ctx.succeeded();
    recorded = true;
  };
  try {
    if (pid !== undefined) {
      record.firstbootGroup = { pid, startTime: startTimeOf(pid) };
      await persist();
      // A stop that came while the group was being recorded keeps the gate shut: no firstboot starts after a stop.
      if (!ctx.signal.aborted) child.stdin.end("go\n");
    }
    exit = await Promise.race([exited, abort]);
    if (exit && isSuccess(exit)) await succeeded();
  } finally {
    child.stdin.destroy();
    ctx.signal.removeEventListener("abort", stopping);
    if (pid !== undefined) {
      const stopped = await stopGroup(pid, ctx.monotonic, GRACE_MS, mark);
      ctx.groupStopped?.(stopped);
      delete record.firstbootGroup;
      // A stop that found firstboot already gone (exited, not yet seen): its own exit is what happened.
      if (!exit && !stopped.processes.some((p) => p.pid === pid)) exit = await exited;
      // Stopped by this installer (or gone with an exit that is no success): no record of the step's end follows while
      // it stops, and the next start must not take a group still on record and gone for a firstboot that may have finished.
      // A state dir that refuses the write leaves the group on record: then the next start cannot tell, and says so.
      if (ctx.signal.aborted && !(exit && isSuccess(exit))) await persist().catch(() => undefined);
      const what = exit
        ? "firstboot left running"
        : isStorageError(ctx.signal.reason)
          ? "of firstboot as the state dir refuses writes"
          : ctx.signal.aborted
            ? "of firstboot as the installer stops"
            : "of firstboot as its step failed";
      if (stopped.processes.length > 0) ctx.emit(stoppedEvent(stopped, what));
    }
    await Promise.race([output, delay(DRAIN_MS)]);
    child.stdout.destroy();
    child.stderr.destroy();
    await output;
    kept.end();
  }
  if (exit && isSuccess(exit) && !recorded) await succeeded();
  // Once its success is on record, a stop while what it left running was stopped interrupts the attempt after firstboot.
  if (!exit || (ctx.signal.aborted && !recorded)) throw ctx.signal.reason;
  if (exit.error) {
    throw new StepFailure("FIRSTBOOT_FAILED", `could not run ${executable}: ${exit.error.message}. Check that --firstboot names an executable file on this node.`);
  }
  if (exit.code !== 0) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const last = record.firstbootTail.slice(-5).join(" | ");
    throw new StepFailure("FIRSTBOOT_FAILED", `firstboot ${how}${last ? `; last output: ${last}` : ""}`);
  }
}

const isSuccess = (exit: Exit) => !exit.error && exit.code === 0;

/** What the start found of the firstboots a killed installer left. */
export interface LeftoverFirstboots {
  /** What it stopped, for the banner. */
  notices: string[];
  /**
   * The attempts whose recorded firstboot (the group's leader: firstboot itself, once past its gate) no longer ran: it
   * exited, how no record says (exit 0 included), or never got past its gate. The others' firstboot was stopped here, unfinished.
   */
  gone: Set<number>;
}

/**
 * At start, before anything else runs: kills, at once, every process the firstboot of an installer
 * that was killed left running (found by its mark, or by the group its attempt recorded), so a retry
 * never runs beside it. (A firstboot about to start looks again.)
 */
export async function stopLeftoverFirstboots(
  attempts: AttemptRecord[],
  mark: string,
  recordsLost: boolean,
  emit: (attempt: number, event: NewEvent) => Promise<void>,
  persist: () => Promise<void>,
  clock?: Clock,
): Promise<LeftoverFirstboots> {
  const byAttempt = new Map<number, Required<Pick<StoppedGroup, "processes" | "survived">>>();
  // A process found by both looks (its recorded group, then its mark) is one: named once.
  const named = new Set<number>();
  const add = (attempt: number, processes: StoppedGroup["processes"], survived: StoppedGroup["survived"] = []) => {
    const found = byAttempt.get(attempt) ?? { processes: [], survived: [] };
    const fresh = processes.filter((p) => !named.has(p.pid));
    for (const p of fresh) named.add(p.pid);
    byAttempt.set(attempt, { processes: [...found.processes, ...fresh], survived: [...found.survived, ...survived.filter((s) => fresh.some((p) => p.pid === s.pid))] });
  };
  const recorded = attempts.filter((a) => a.firstbootGroup);
  const givenUp: number[] = [];
  for (const record of recorded) {
    const stopped = await stopRecordedGroup(record.firstbootGroup!, clock, 0);
    add(record.attempt, stopped?.processes ?? [], stopped?.survived);
    givenUp.push(...(stopped?.survived ?? []).map((p) => p.pid));
  }
  // A firstboot runs only once its attempt is recorded running (and its group persisted): with none such and the
  // records whole, none can be left, and the start does not pay for reading every process's environment. What the
  // first look found stuck in the kernel is killed again, not waited for a second time.
  const mayBeLeft = recordsLost || attempts.some((a) => a.state === "running" || a.firstbootGroup);
  const marked: StoppedGroup = mayBeLeft ? await killMarked(mark, clock, { givenUp }) : { processes: [] };
  for (const process of marked.processes) add(process.attempt ?? attempts.at(-1)?.attempt ?? 1, [process], marked.survived?.filter((s) => s.pid === process.pid));
  // The leader found and stopped (by its recorded start time, or by the mark where that is not known) still ran.
  const gone = new Set(recorded.filter((a) => !byAttempt.get(a.attempt)?.processes.some((p) => p.pid === a.firstbootGroup!.pid)).map((a) => a.attempt));
  // A group stopped here is forgotten. One already gone stays on a running attempt's record until its verdict is
  // written with it: a start killed in between must find the same evidence (the runner forgets it then).
  const forgotten = recorded.filter((a) => !(gone.has(a.attempt) && a.state === "running"));
  for (const record of forgotten) delete record.firstbootGroup;
  const notices: string[] = [];
  for (const [attempt, stopped] of [...byAttempt].sort(([a], [b]) => a - b)) {
    if (stopped.processes.length === 0) continue;
    const event = stoppedEvent(stopped, `the interrupted firstboot of attempt ${attempt} left running`);
    if (attempts.some((a) => a.attempt === attempt)) await emit(attempt, { ...event, step: "firstboot" });
    notices.push(event.message);
  }
  if (forgotten.length > 0) await persist();
  return { notices, gone };
}

function stoppedEvent(stopped: StoppedGroup, why: string): Omit<NewEvent, "step"> {
  const processes = stopped.processes.map(({ pid, command }) => ({ pid, command }));
  const data = { stopped: processes, ...(stopped.killedAfterMs ? { killedAfterMs: stopped.killedAfterMs } : {}), ...(stopped.survived?.length ? { survived: stopped.survived } : {}) };
  return { type: "step.progress", level: "warn", message: describeStopped(stopped, why), data };
}

/** What an event of one firstboot line adds on disk to its message's JSON string: seq, attempt, time, type, level, step, data. */
export const EVENT_BYTES = 160;

/**
 * Keeps count of one firstboot run's output, both pipes: which lines its attempt keeps as events (their size on disk
 * counted as the event log writes them, escapes and all), what it did not, and its last lines for the tail.
 */
class OutputKept {
  #lines = 0;
  #bytes = 0;
  #notKept = { lines: 0, bytes: 0 };
  /** Past the limit, the last lines as they came: made printable and redacted only at the end, not each of millions. */
  #last: Array<[line: string, dropped: number]> = [];

  constructor(
    private readonly ctx: StepContext,
    private readonly limit: OutputLimit,
    private readonly tail: string[],
  ) {}

  /** Past the limit: lines are counted and the last ones kept for the tail, nothing more. */
  get full(): boolean {
    return this.#notKept.lines > 0;
  }

  /** Whether the line whose event says `message` is kept; when it would pass the limit, says so once. */
  keeps(message: string): boolean {
    const bytes = Buffer.byteLength(printableJson(message)) + EVENT_BYTES;
    if (this.#lines < this.limit.lines && this.#bytes + bytes <= this.limit.bytes) {
      this.#lines += 1;
      this.#bytes += bytes;
      return true;
    }
    const all = this.#lines >= this.limit.lines ? `${this.#lines} lines` : `${formatBytes(this.#bytes)} of events`;
    this.ctx.emit({
      type: "step.progress",
      level: "warn",
      message: `firstboot has printed ${all}, all this attempt keeps: what it prints from now on is counted, not kept, so that it cannot fill the state dir`,
      data: { limit: { ...this.limit } },
    });
    return false;
  }

  /** A line not kept (`line` as the splitter kept it, `dropped` bytes past that); `inTail` when it is in the tail already. */
  count(line: string, dropped: number, inTail: boolean): void {
    this.#notKept.lines += 1;
    this.#notKept.bytes += Buffer.byteLength(line) + dropped + 1;
    if (inTail) return;
    this.#last.push([line, dropped]);
    if (this.#last.length > TAIL_LINES) this.#last.shift();
  }

  /** Once both pipes closed: the tail ends with firstboot's real last lines, and what was not kept is said, if anything. */
  end(): void {
    for (const [line, dropped] of this.#last) pushTail(this.tail, capText(this.ctx.redactor.text(line), MAX_LINE_BYTES, dropped).text);
    this.#last = [];
    const { lines, bytes } = this.#notKept;
    if (lines === 0) return;
    this.ctx.emit({
      type: "step.progress",
      level: "warn",
      message: `firstboot printed ${lines} more line${lines === 1 ? "" : "s"} (${formatBytes(bytes)}) past what an attempt keeps; they were not kept`,
      data: { notKept: { lines, bytes } },
    });
  }
}

function pushTail(tail: string[], message: string): void {
  tail.push(message);
  if (tail.length > TAIL_LINES) tail.shift();
}

/**
 * Every line of one pipe becomes an event (cut at MAX_LINE_BYTES, saying how much was cut) while the run's output is
 * kept; resolves once the pipe closed. A private key printed there (`cat key.pem`) shows in none: each line after its
 * BEGIN line is its own until its END line (or the first that is no body line), and is taken whole.
 */
function follow(ctx: StepContext, stream: Readable, name: "stdout" | "stderr", tail: string[], kept: OutputKept): Promise<void> {
  const key = privateKeyLines();
  const lines = new LineSplitter(MAX_LINE_BYTES + REDACTION_MARGIN, (printed, dropped) => {
    const line = key.ownLine(printed) ? REDACTED : printed;
    if (kept.full) return kept.count(line, dropped, false);
    const { text: message, cutBytes } = capText(ctx.redactor.text(line), MAX_LINE_BYTES, dropped);
    pushTail(tail, message);
    if (!kept.keeps(message)) return kept.count(line, dropped, true);
    ctx.emit({ type: "step.log", level: name === "stdout" ? "info" : "warn", message, data: { stream: name, ...(cutBytes > 0 ? { truncatedBytes: cutBytes } : {}) } });
    const caughtUp = ctx.backlogged();
    if (caughtUp) {
      stream.pause();
      void caughtUp.then(() => stream.resume());
    }
  });
  stream.on("data", (chunk: Buffer) => lines.push(chunk));
  return new Promise((resolve) => {
    stream.once("close", () => {
      lines.end();
      resolve();
    });
  });
}
