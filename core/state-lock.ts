import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";

export class StateDirLockedError extends Error {
  constructor(readonly stateDir: string, readonly pid: number) {
    super(`another installer (pid ${pid}) is running on state dir ${stateDir}; stop it or pick another --state-dir`);
    this.name = "StateDirLockedError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readHolder(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One installer per state dir. The lock file holds the owner's pid; a lock whose
 * pid is gone (killed process) is taken over. Returns a release function.
 */
export async function acquireStateLock(stateDir: string): Promise<{ release(): Promise<void>; tookOverFrom?: number }> {
  const path = join(stateDir, "installer.lock");
  let tookOverFrom: number | undefined;
  for (let tries = 0; tries < 5; tries++) {
    try {
      const file = await open(path, "wx", 0o600);
      await file.writeFile(`${process.pid}\n`);
      await file.sync();
      await file.close();
      return { release: () => releaseIfOurs(path), tookOverFrom };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = await readHolder(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new StateDirLockedError(stateDir, holder);
    }
    tookOverFrom = holder;
    await rm(path, { force: true });
  }
  throw new Error(`could not take the lock ${path}: it keeps changing hands`);
}

async function releaseIfOurs(path: string): Promise<void> {
  if ((await readHolder(path)) === process.pid) await rm(path, { force: true });
}
