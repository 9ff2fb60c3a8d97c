import { readFile } from "node:fs/promises";

/**
 * Alive and not a zombie: a killed orphan stays a zombie until its new parent reaps it, and where
 * PID 1 never reaps (some containers) that is forever, while kill -0 still succeeds on it.
 */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
}
