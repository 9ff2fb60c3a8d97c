import { readdir, readFile } from "node:fs/promises";
import { firstbootMark } from "../../core/process/group.ts";
import { FIRSTBOOT_MARK_VARIABLE } from "../../core/process/mark.ts";

/**
 * Alive and not a zombie: a killed orphan stays a zombie until its new parent reaps it, and where
 * PID 1 never reaps (some containers) that is forever, while kill -0 still succeeds on it.
 */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
}

/** The live processes carrying a state dir's firstboot mark (core/process/group.ts): its firstboots and whatever they started. */
export async function markedProcesses(stateDir: string): Promise<number[]> {
  const mark = `${FIRSTBOOT_MARK_VARIABLE}=${firstbootMark(stateDir)}/`;
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
  const marked = await Promise.all(
    pids.map(async (pid) => ((await readFile(`/proc/${pid}/environ`, "latin1").catch(() => "")).split("\0").some((entry) => entry.startsWith(mark)) && (await alive(pid)) ? pid : undefined)),
  );
  return marked.filter((pid): pid is number => pid !== undefined);
}

/** The names (comm) of the live processes in process group `pgid`. */
export async function groupNames(pgid: number): Promise<string[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const stats = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")));
  return stats.flatMap((stat) => {
    const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat) ?? [];
    const [state, , pgrp] = rest?.split(" ") ?? [];
    return comm !== undefined && Number(pgrp) === pgid && !/^[ZX]/.test(state ?? "") ? [comm] : [];
  });
}
