import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { GroupRecord } from "../state/records.ts";

export interface StoppedGroup {
  processes: { pid: number; command: string }[];
  /** Set when some ignored SIGTERM for the whole grace period and got SIGKILL. */
  killedAfterMs?: number;
}

export const GRACE_MS = 3000;
/** SIGKILL cannot be ignored; this only bounds a wait on a process stuck in the kernel. */
const KILL_WAIT_MS = 5000;
const POLL_MS = 50;

interface Stat {
  pid: number;
  command: string;
  state: string;
  pgrp: number;
  startTime: number;
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
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8")).startTime;
  } catch {
    return null;
  }
}

/** The group's live members (zombies are dead: an orphan stays one until its new parent reaps it); undefined without /proc. */
async function members(pgid: number): Promise<Stat[] | undefined> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return undefined;
  }
  const stats = await Promise.all(names.filter((name) => /^\d+$/.test(name)).map((name) => readStat(Number(name))));
  return stats.filter((s): s is Stat => s !== undefined && s.pgrp === pgid && s.state !== "Z" && s.state !== "X");
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops every process of a group like a systemd unit: SIGTERM, then SIGKILL after the grace period (by `now`, the
 * service's clock); names what it found.
 */
export async function stopGroup(pgid: number, now: () => Date, graceMs = GRACE_MS): Promise<StoppedGroup> {
  const seen = new Map<number, string>();
  const anyLeft = async () => {
    const live = await members(pgid);
    if (live === undefined) return signalGroup(pgid, 0);
    for (const member of live) seen.set(member.pid, member.command);
    return live.length > 0;
  };
  const gone = async (ms: number) => {
    const end = now().getTime() + ms;
    while (await anyLeft()) {
      if (now().getTime() >= end) return false;
      await delay(POLL_MS);
    }
    return true;
  };
  const stopped: StoppedGroup = { processes: [] };
  if (await anyLeft()) {
    signalGroup(pgid, "SIGTERM");
    if (!(await gone(graceMs))) {
      signalGroup(pgid, "SIGKILL");
      stopped.killedAfterMs = graceMs;
      await gone(KILL_WAIT_MS);
    }
  }
  stopped.processes = [...seen].map(([pid, command]) => ({ pid, command }));
  return stopped;
}

/**
 * Stops what is left of a group an earlier process recorded. A pid now held by a process with
 * another start time is not that group's leader and is left alone; while any member lives the
 * kernel does not hand the group's id to a new process, so members found by it are the group's.
 */
export async function stopRecordedGroup(group: GroupRecord, now: () => Date, graceMs = GRACE_MS): Promise<StoppedGroup | undefined> {
  if (group.startTime === null) return undefined;
  const leader = await readStat(group.pid);
  if (leader && leader.startTime !== group.startTime) return undefined;
  return stopGroup(group.pid, now, graceMs);
}

/** "stopped 2 processes firstboot left running: 4242 sleep, 4243 bash" */
export function describeStopped(stopped: StoppedGroup, what: string): string {
  const count = stopped.processes.length;
  const list = stopped.processes.map((p) => `${p.pid} ${p.command}`).join(", ");
  const killed = stopped.killedAfterMs === undefined ? "" : ` (SIGTERM was ignored: SIGKILL after ${stopped.killedAfterMs / 1000} s)`;
  return `stopped ${count} process${count === 1 ? "" : "es"} ${what}: ${list}${killed}`;
}
