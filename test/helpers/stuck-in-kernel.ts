import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";

/**
 * A FUSE file system whose one file's lookup the daemon reads and never answers: a process that looks it up waits in
 * the kernel, and once a signal that kills it came, that wait is uninterruptible (state D), as on a hung disk or NFS
 * server. It ends when this daemon dies: the kernel then aborts the requests. Anything else asked of it fails at once
 * (ENOENT, ENOSYS), so that nothing else that comes across the mount hangs (a test run's rm -rf of its temp folder),
 * and the daemon dies with the test that made it (its stdin closes), taking the mount with it.
 */
const DAEMON = String.raw`
const fs = require("fs");
// Not process.exit: it would wait for the read the kernel holds. SIGKILL closes the device, which aborts the mount's
// requests; the mount itself stays (each look at it fails) unless it is taken away: a lazy unmount, by a process of its
// own, since its look at the mount point may come before this death aborts what it asks.
process.stdin.on("end", () => {
  require("child_process").spawn("umount", ["-l", process.argv[1]], { stdio: "ignore", detached: true }).unref();
  process.kill(process.pid, "SIGKILL");
}).resume();
const fd = fs.openSync("/dev/fuse", "r+");
require("child_process").execFileSync("mount", ["-t", "fuse.stratum-stuck", "-o", "fd=3,rootmode=40000,user_id=0,group_id=0", "stratum-stuck", process.argv[1]], { stdio: ["ignore", "ignore", "inherit", fd] });
process.stdout.write("mounted\n");
const buf = Buffer.alloc((1 << 20) + 8192);
const reply = (unique, error, body = Buffer.alloc(0)) => {
  const out = Buffer.alloc(16 + body.length);
  out.writeUInt32LE(out.length, 0);
  out.writeInt32LE(error, 4);
  out.writeBigUInt64LE(unique, 8);
  body.copy(out, 16);
  fs.writeSync(fd, out);
};
const next = () => fs.read(fd, buf, 0, buf.length, null, (err, length) => {
  if (err) process.exit(0);
  const opcode = buf.readUInt32LE(4);
  const unique = buf.readBigUInt64LE(8);
  if (opcode === 26) {
    // FUSE_INIT: protocol 7.31, one background request, 64 KiB writes.
    const init = Buffer.alloc(64);
    init.writeUInt32LE(7, 0);
    init.writeUInt32LE(31, 4);
    init.writeUInt16LE(1, 16);
    init.writeUInt16LE(1, 18);
    init.writeUInt32LE(65536, 20);
    reply(unique, 0, init);
  } else if (opcode === 1 && buf.toString("latin1", 40, length).split("\0")[0] === "file") {
    process.stdout.write("looked up\n");
  } else if (opcode === 1) reply(unique, -2);
  // FORGET, INTERRUPT and BATCH_FORGET take no answer.
  else if (![2, 36, 42].includes(opcode)) reply(unique, -38);
  next();
});
next();`;

export interface StuckMount {
  /** A file whose lookup never ends. */
  file: string;
  /** Resolves once a process has begun to look it up: from then on it waits in the kernel. */
  lookedUp(): Promise<boolean>;
  /** Aborts every wait on it (a process with a SIGKILL pending then dies) and removes the mount. */
  release(): Promise<void>;
}

/** The FUSE mount above, in a folder of its own. Needs root and /dev/fuse (and a kernel that lets this container mount FUSE); undefined where not possible. */
export async function stuckMount(): Promise<StuckMount | undefined> {
  if (process.getuid?.() !== 0 || !existsSync("/dev/fuse")) return undefined;
  const folder = await mkdtemp(join(tmpdir(), "stratum-stuck-"));
  const mountPoint = join(folder, "mnt");
  await mkdir(mountPoint);
  const daemon = spawn(process.execPath, ["-e", DAEMON, mountPoint], { stdio: ["pipe", "pipe", "ignore"] });
  const daemonExit = once(daemon, "exit");
  const release = async () => {
    daemon.kill("SIGKILL");
    await daemonExit;
    await promisify(execFile)("umount", ["-l", mountPoint]).catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
  };
  const said = lines(daemon);
  if (!(await Promise.race([said.next("mounted"), daemonExit.then(() => false)]))) {
    await release();
    return undefined;
  }
  return { file: join(mountPoint, "file"), lookedUp: () => Promise.race([said.next("looked up"), daemonExit.then(() => false)]), release };
}

export interface StuckProcess {
  pid: number;
  /** Lets it go: it dies of the SIGKILL it got (or goes on, if it got none) and is waited for; the mount is removed. Once. */
  release(): Promise<void>;
}

/**
 * A real process (`stat`, in a group of its own, with `env`) stuck in the kernel so that SIGKILL does not end it until
 * released; undefined where no stuck mount can be made.
 */
async function stuckInKernel(env: Record<string, string>): Promise<StuckProcess | undefined> {
  const mount = await stuckMount();
  if (!mount) return undefined;
  const victim = spawn("stat", [mount.file], { stdio: "ignore", detached: true, env: { ...process.env, ...env } });
  const exited = once(victim, "exit");
  let released: Promise<void> | undefined;
  const release = () =>
    (released ??= (async () => {
      await mount.release();
      if (victim.exitCode === null && victim.signalCode === null) await exited;
    })());
  // A stat that fails at once (no lookup) ends without one.
  if (!(await Promise.race([mount.lookedUp(), exited.then(() => false)]))) {
    await release();
    return undefined;
  }
  return { pid: victim.pid!, release };
}

/** Waits for a line of the daemon's output. */
function lines(child: ChildProcess): { next(line: string): Promise<boolean> } {
  let seen = "";
  const waiters: { line: string; resolve: (found: boolean) => void }[] = [];
  child.stdout!.on("data", (chunk: Buffer) => {
    seen += chunk.toString();
    for (const waiter of waiters.splice(0)) {
      if (seen.split("\n").includes(waiter.line)) waiter.resolve(true);
      else waiters.push(waiter);
    }
  });
  return {
    next: (line) => (seen.split("\n").includes(line) ? Promise.resolve(true) : new Promise((resolve) => waiters.push({ line, resolve }))),
  };
}

/** `stuckInKernel` for test `t`, let go when it ends; undefined, the test marked skipped, where none can be made. */
export async function stuckFor(t: TestContext, env: Record<string, string>): Promise<StuckProcess | undefined> {
  const stuck = await stuckInKernel(env);
  if (!stuck) {
    t.skip("needs root and a FUSE mount");
    return undefined;
  }
  t.after(() => stuck.release());
  return stuck;
}
