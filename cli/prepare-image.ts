/**
 * `installer.js prepare-image`: V8's code cache for a first start, written beside the bundle. On an image whose state
 * dir starts empty at every boot (a rescue image's is in RAM) every start is a first start, and compiling the
 * commands' code without a cache is most of what makes it slower than the second (bench/RESULTS.md). Made once when
 * the image is built, with the Node the image runs, by a real first start: a `serve` on a state dir of its own, one
 * request, then its cache taken.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { realpathSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeFileAtomic } from "../core/fs/atomic-write.ts";
import { notWrittenBecause, writeRemedy } from "../core/fs/storage-error.ts";
import { request } from "../core/http/client.ts";
import { stateLayout } from "../core/state/layout.ts";
import type { Exit } from "./commands.ts";
import { bundleFolderRefusal, codeCacheBeside } from "./fast-start.ts";
import { STOPS, onStop, type StopSignal } from "./stops.ts";

const START_MS = 60_000;
const ITS_USE =
  ": a start whose state dir has no cache of its own compiles from it.\n" +
  "Make it again after replacing installer.js or Node, with the flags and NODE_OPTIONS the service runs with.\n";
/** A serve that has not stopped this long after SIGTERM is killed. */
const STOP_MS = 10_000;
/** How long a failure waits for a stop's signal that came with it (the terminal's Ctrl-C reaches its serve too). */
const SIGNAL_GRACE_MS = 100;

/** The banner's URL, install code and fingerprint (pinned: the request goes to this serve alone). */
function bannerOf(stdout: string): { url: string; code: string; pin: string } | undefined {
  const url = /^ {2}URL: +(\S+)/m.exec(stdout)?.[1];
  const code = /^ {2}Install code: +(\S+)/m.exec(stdout)?.[1];
  const pin = /^ {2}TLS SHA-256: +([0-9A-F:]+)/m.exec(stdout)?.[1];
  return url && code && pin && /State dir:/.test(stdout) ? { url, code, pin: pin.replaceAll(":", "").toLowerCase() } : undefined;
}

export async function prepareImage(bundlePath: string): Promise<Exit | number> {
  // Where a start looks: beside the bundle's real file (Node resolves a symlink to it).
  const bundle = realpathSync(bundlePath);
  const refused = bundleFolderRefusal(bundle);
  if (refused) {
    process.stderr.write(`installer: no code cache written: ${refused}: no start would trust a cache in it\n`);
    return 1;
  }
  // Stopped (Ctrl-C, which its serve gets too; SIGTERM, an image build's timeout; SIGHUP, the terminal gone): its serve
  // stopped, its temp folder removed, one line said, exit 128 + the signal's number.
  let stoppedBy: StopSignal | undefined;
  let child: ChildProcess | undefined;
  const stopped = onStop((signal) => {
    stoppedBy = signal;
    child?.kill("SIGTERM");
  });
  const work = await mkdtemp(join(tmpdir(), "stratum-prepare-image-")).catch((err: unknown) => {
    stopped();
    throw err;
  });
  const stateDir = join(work, "state");
  // The flags and NODE_OPTIONS this command runs with are the cache's: V8 refuses it under others.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("STRATUM_")));
  // Every path of its own: it must never take a node.yaml left for an unattended install, nor touch the node.
  const own = (name: string) => join(work, name);
  const args = ["serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--payload", own("payload"), "--handoff", own("node.yaml"), "--install-record", own("install-record.json"), "--node-yaml", own("etc-node.yaml"), "--firstboot", own("firstboot")];
  const serve = (child = spawn(process.execPath, [...process.execArgv, bundle, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
  if (stoppedBy) serve.kill("SIGTERM");
  let stdout = "";
  let stderr = "";
  /** The serve's `listening` log line: what it did with the cache already beside the bundle. */
  let listening: { codeCache?: string; codeCacheFrom?: string } | undefined;
  let partLine = "";
  serve.stdout.on("data", (d: Buffer) => (stdout += d));
  serve.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d).slice(-4000);
    if (listening) return;
    const lines = (partLine + d).split("\n");
    partLine = lines.pop()!.slice(-64 * 1024);
    // Each line JSON, after an sd-daemon priority (<6>) when the environment names a journal.
    for (const line of lines) {
      if (!line.includes('"message":"listening"')) continue;
      try {
        listening = JSON.parse(line.slice(line.indexOf("{"))) as typeof listening;
      } catch {
        listening = {};
      }
    }
  });
  const lastWords = () => stderr.trim().split("\n").slice(-3).join(" | ") || "no output";
  const exited = once(serve, "exit");
  /** Its serve ended, or it was stopped: what it waits for will not come. */
  const over = (why: () => string) => {
    if (stoppedBy || serve.exitCode !== null) throw new Error(why());
  };
  try {
    const deadline = performance.now() + START_MS;
    let banner = bannerOf(stdout);
    while (!banner || !listening) {
      over(() => `the installer did not start: ${lastWords()}`);
      if (performance.now() > deadline) throw new Error(`the installer did not start: ${lastWords()}`);
      await sleep(20);
      banner = bannerOf(stdout);
    }
    const file = codeCacheBeside(bundle);
    // It started from the cache already here (this installer.js, Node and flags, accepted by V8): such a start writes
    // none into its state dir, and the one here is what it would be.
    if (listening.codeCache === "used" && listening.codeCacheFrom === "bundle") {
      // Used by this user (root reads any file): the service, which may run as another, reads it only if all may.
      const mode = (await stat(file)).mode & 0o777;
      if ((mode & 0o044) === 0o044) {
        process.stdout.write(`${file} is current (Node ${process.version})${ITS_USE}`);
        return 0;
      }
      try {
        await chmod(file, 0o644);
      } catch (err) {
        throw new Error(`${file} is current, but its mode ${mode.toString(8)} keeps a service run as another user from reading it, and it could not be changed (${(err as Error).message}): \`chmod 644\` it as its owner`);
      }
      process.stdout.write(`${file} is current (Node ${process.version}); made readable by every user (it was mode ${mode.toString(8)}: a service run as another user could not read it)${ITS_USE}`);
      return 0;
    }
    const answer = await request({
      url: new URL("/v1/installer/status", banner.url),
      trust: { pin: banner.pin },
      headers: { authorization: `Bearer ${banner.code}` },
      timeoutMs: START_MS,
      maxBytes: 1024 * 1024,
    });
    if (answer.status !== 200) throw new Error(`its first request was answered ${answer.status}`);
    // The service writes its cache once no request has come for a second after that one.
    const made = stateLayout(stateDir).codeCache;
    while (!(await stat(made).then((s) => s.size > 0, () => false))) {
      over(() => `the installer wrote no code cache: ${lastWords()}`);
      if (performance.now() > deadline) throw new Error(`the installer wrote no code cache: ${lastWords()}`);
      await sleep(20);
    }
    const data = await readFile(made);
    // Read by the service (which may run as another user), written by its owner alone (a cache others could write is not trusted).
    await writeFileAtomic(file, data, { mode: 0o644 }).catch((err: unknown) => {
      // Beside installer.js, on an image sealed already (read-only) or full: said with the file's name and what to do.
      throw new Error(`${file} cannot be written (${notWrittenBecause(err)}): ${writeRemedy(err)}`);
    });
    process.stdout.write(`wrote ${file} (${(data.length / 1024 / 1024).toFixed(1)} MiB, Node ${process.version})${ITS_USE}`);
    return 0;
  } catch (err) {
    // Ctrl-C reaches its serve and it at once: the serve's end (a connection refused, no banner) may be read before the
    // signal is, which is already on its way. A moment for it, so that a stop is said as one, not as a failure.
    if (!stoppedBy) await sleep(SIGNAL_GRACE_MS);
    // Its serve, stopped by the same Ctrl-C, is no failure of its own to report.
    process.stderr.write(stoppedBy ? `installer: stopped (${stoppedBy}): no code cache written\n` : `installer: no code cache written: ${(err as Error).message}\n`);
    return stoppedBy ? STOPS[stoppedBy] : 1;
  } finally {
    if (serve.exitCode === null && serve.signalCode === null) {
      // A stop sent it SIGTERM already: a second one would be the one that exits at once.
      if (!stoppedBy) serve.kill("SIGTERM");
      const killer = setTimeout(() => serve.kill("SIGKILL"), STOP_MS);
      await exited;
      clearTimeout(killer);
    }
    await rm(work, { recursive: true, force: true });
    stopped();
  }
}
