import { createHash } from "node:crypto";
import { readFileSync, realpathSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { GroupRecord } from "../state/records.ts";
import { monotonic, type Clock } from "../common/clock.ts";
import { FIRSTBOOT_MARK_VARIABLE } from "./mark.ts";

export interface StoppedGroup {
  /** `attempt`: the attempt whose mark the process carried. */
  processes: { pid: number; command: string; attempt?: number }[];
  /** Set when some ignored SIGTERM for the whole grace period and got SIGKILL. */
  killedAfterMs?: number;
  /**
   * Those still there after SIGKILL and a wait: stuck in the kernel (state D: a hung disk or network mount), each ends
   * once that wait does, without running another instruction of its own.
   */
  survived?: { pid: number; command: string; state: string }[];
}

export const GRACE_MS = 3000;
/** SIGKILL cannot be ignored; this only bounds a wait on a process stuck in the kernel. */
const KILL_WAIT_MS = 5000;
const POLL_MS = 50;
/** How long a signal is given to take effect once the caller stopped waiting (a process not stuck dies at once). */
const SETTLE_MS = 250;

interface Stat {
  pid: number;
  command: string;
  state: string;
  pgrp: number;
  session: number;
  startTime: number;
}

/**
 * The environment variable every process of a firstboot carries: inherited across fork, setsid and
 * setpgid, so a child that left the group is still found, and after a kill -9 no record is needed.
 */
const MARK_VARIABLE = FIRSTBOOT_MARK_VARIABLE;
/** Its name before it had one of its own: a firstboot such an installer left running is found after an upgrade too. */
const EARLIER_MARK_VARIABLE = "STRATUM_FIRSTBOOT";

/** This state dir's mark: its firstboots are this installer's, another state dir's are not. */
export function firstbootMark(stateDir: string): string {
  // The folder's own path: a start through a symlink (or another mount of it) must find what an earlier start left.
  return createHash("sha256").update(realFolder(stateDir)).digest("hex").slice(0, 16);
}

/** `stateDir`'s real path, or as given (resolved) while it does not exist yet. */
function realFolder(stateDir: string): string {
  try {
    return realpathSync(stateDir);
  } catch {
    return resolve(stateDir);
  }
}

export function markedEnv(mark: string, attempt: number): Record<string, string> {
  return { [MARK_VARIABLE]: `${mark}/${attempt}` };
}

function parseStat(text: string): Stat {
  // The command sits in parentheses and may hold spaces and parentheses itself.
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  return {
    pid: Number.parseInt(text, 10),
    command: text.slice(text.indexOf("(") + 1, close),
    state: fields[0]!,
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    startTime: Number(fields[19]),
  };
}

async function readStat(pid: number): Promise<Stat | undefined> {
  try {
    return parseStat(await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Synchronous on purpose: called right after spawn, before the event loop can reap the child, so its entry is still there. */
export function startTimeOf(pid: number): number | null {
  return statOf(pid)?.startTime ?? null;
}

/** Whether a process has exited though its parent has not reaped it yet (a zombie): it holds nothing any more. */
export const hasExited = (pid: number): boolean => ["Z", "X"].includes(statOf(pid)?.state ?? "");

function statOf(pid: number): Stat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** The attempt of the mark in a process's environment, if it carries this one. */
async function markedAttempt(pid: number, mark: string): Promise<number | undefined> {
  const environ = await readFile(`/proc/${pid}/environ`, "latin1").catch(() => "");
  for (const name of [MARK_VARIABLE, EARLIER_MARK_VARIABLE]) {
    const prefix = `${name}=${mark}/`;
    const entry = environ.split("\0").find((e) => e.startsWith(prefix));
    if (entry !== undefined) return Number(entry.slice(prefix.length));
  }
  return undefined;
}

interface Member extends Stat {
  attempt?: number;
}

/**
 * The live processes of a group, of the session its leader made, or carrying the mark (zombies are
 * dead: an orphan stays one until its new parent reaps it); undefined without /proc.
 */
async function members(pgid: number | undefined, mark: string | undefined): Promise<Member[] | undefined> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return undefined;
  }
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name): Promise<Member | undefined> => {
        const stat = await readStat(Number(name));
        if (stat === undefined || stat.state === "Z" || stat.state === "X") return undefined;
        const attempt = mark === undefined ? undefined : await markedAttempt(stat.pid, mark);
        if (attempt !== undefined) return { ...stat, attempt };
        return pgid !== undefined && (stat.pgrp === pgid || stat.session === pgid) ? stat : undefined;
      }),
  );
  return found.filter((m): m is Member => m !== undefined);
}

function signalEach(live: Member[], pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid !== undefined) signalGroup(pgid, signal);
  for (const member of live) {
    try {
      process.kill(member.pid, signal);
    } catch {}
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** What bounds a stop's waits besides its clock. */
export interface WaitLimits {
  /** Pids an earlier stop found still there after SIGKILL (stuck in the kernel): killed again, not waited for again. */
  givenUp?: readonly number[];
  /** Once aborted (the service stops), a wait goes on only a moment (SETTLE_MS): those left then are named as still there. */
  signal?: AbortSignal;
}

/**
 * Stops every process of a group (and of its session, and every one carrying the mark) like a
 * systemd unit: SIGTERM, then SIGKILL after the grace period (by `clock`: a time sync that steps the
 * wall clock back must not stretch it), again until none is left, so one that forks while it is
 * stopped is taken too; names what it found.
 */
export async function stopGroup(pgid: number | undefined, clock: Clock = monotonic, graceMs = GRACE_MS, mark?: string, { givenUp = [], signal: until }: WaitLimits = {}): Promise<StoppedGroup> {
  const seen = new Map<number, { command: string; attempt?: number }>();
  let live: Member[] = [];
  const anyLeft = async () => {
    const found = await members(pgid, mark);
    if (found === undefined) return pgid !== undefined && signalGroup(pgid, 0);
    live = found;
    for (const member of live) seen.set(member.pid, { command: member.command, ...(member.attempt === undefined ? {} : { attempt: member.attempt }) });
    return live.length > 0;
  };
  const gone = async (ms: number, signal: NodeJS.Signals) => {
    let end = clock() + ms;
    // Each wait's own: SIGKILL sent after a grace period the abort cut short gets its moment too.
    let abortedAt: number | undefined;
    while (await anyLeft()) {
      // A caller that stopped waiting leaves a signal only a moment more to take effect; those given up on are
      // signalled with the others, not waited for again.
      if (until?.aborted) end = Math.min(end, (abortedAt ??= clock()) + SETTLE_MS);
      if (live.every((member) => givenUp.includes(member.pid)) || clock() >= end) return false;
      if (signal === "SIGKILL") signalEach(live, pgid, signal);
      await delay(POLL_MS);
    }
    return true;
  };
  const stopped: StoppedGroup = { processes: [] };
  if (await anyLeft()) {
    if (graceMs > 0) signalEach(live, pgid, "SIGTERM");
    if (graceMs === 0 || !(await gone(graceMs, "SIGTERM"))) {
      signalEach(live, pgid, "SIGKILL");
      if (graceMs > 0) stopped.killedAfterMs = graceMs;
      if (!(await gone(KILL_WAIT_MS, "SIGKILL"))) stopped.survived = live.map(({ pid, command, state }) => ({ pid, command, state }));
    }
  }
  stopped.processes = [...seen].map(([pid, found]) => ({ pid, ...found }));
  return stopped;
}

/** Kills at once every process carrying the mark: a firstboot whose installer died has no one to finish it. */
export function killMarked(mark: string, clock: Clock = monotonic, limits: WaitLimits = {}): Promise<StoppedGroup> {
  return stopGroup(undefined, clock, 0, mark, limits);
}

/**
 * Stops what is left of a group an earlier process recorded, while its leader still runs: only the
 * leader's pid and start time prove the group is ours. Once the leader is gone, its group or session
 * id may be another program's (after a reboot, or a pid that wrapped round), so it is left alone; the
 * group's own survivors carry the firstboot mark and `killMarked` finds them.
 */
export async function stopRecordedGroup(group: GroupRecord, clock: Clock = monotonic, graceMs = GRACE_MS): Promise<StoppedGroup | undefined> {
  if (group.startTime === null) return undefined;
  const leader = await readStat(group.pid);
  if (!leader || leader.startTime !== group.startTime) return undefined;
  return stopGroup(group.pid, clock, graceMs);
}

/**
 * "stopped 2 processes firstboot left running: 4242 sleep, 4243 bash"; those SIGKILL has not ended yet are not counted
 * as stopped, but named apart: "…; 1 more is still there after SIGKILL: 4244 stat (state D: …)".
 */
export function describeStopped(stopped: StoppedGroup, what: string): string {
  const survived = stopped.survived ?? [];
  const ended = stopped.processes.filter((p) => !survived.some((s) => s.pid === p.pid));
  const plural = (count: number) => `${count} process${count === 1 ? "" : "es"}`;
  const killed = stopped.killedAfterMs === undefined ? "" : ` (SIGTERM was ignored: SIGKILL after ${stopped.killedAfterMs / 1000} s)`;
  const there = (count: number) => `${count === 1 ? "is" : "are"} still there after SIGKILL`;
  if (survived.length === 0 || ended.length > 0) {
    const stoppedPart = `stopped ${plural(ended.length)} ${what}: ${ended.map((p) => `${p.pid} ${p.command}`).join(", ")}${killed}`;
    return survived.length === 0 ? stoppedPart : `${stoppedPart}; ${survived.length} more ${there(survived.length)}: ${describeSurvivors(survived)}`;
  }
  return `${plural(survived.length)} ${what} ${there(survived.length)}${killed}: ${describeSurvivors(survived)}`;
}

/** "4242 stat (state D: waiting in the kernel, …)": what the process waits for is its own, so the words say where to look. */
export function describeSurvivors(survived: NonNullable<StoppedGroup["survived"]>): string {
  return survived
    .map(({ pid, command, state }) =>
      state === "D"
        ? `${pid} ${command} (state D: waiting in the kernel, often on a hung disk or network mount; it ends once that wait does, and \`cat /proc/${pid}/stack\` as root shows where it waits)`
        : `${pid} ${command} (state ${state})`,
    )
    .join(", ");
}
