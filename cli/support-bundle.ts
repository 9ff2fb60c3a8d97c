import { constants, createWriteStream, fstatSync, unlinkSync } from "node:fs";
import { link, open, realpath, rename, rm, stat } from "node:fs/promises";
import { isatty } from "node:tty";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { offlineFacts, operatorSecrets, readBundle, readState, serviceFact, writeSupportBundle, type BundleContents, type Manifest } from "../core/support/index.ts";
import type { Exit } from "./commands.ts";
import { printable } from "../core/common/printable.ts";
import { capText } from "../core/common/cut-text.ts";
import { lastStartRanWith } from "../core/state/last-start.ts";
import { SERVE_FLAGS } from "./flags.ts";
import { goOnWithoutStdout } from "./epipe.ts";
import { STOPS, onStop } from "./stops.ts";
import { makeFolder } from "../core/fs/private-dir.ts";
import { removeInterruptedWritesOf } from "../core/fs/atomic-write.ts";
import { tempPathOf } from "../core/state/layout.ts";
import { notWrittenBecause, stateDirNotReadable, writeRemedy } from "../core/fs/storage-error.ts";

interface SupportBundleOptions {
  stateDir: string;
  /** A file, a folder to put it in, or - for stdout; default: the working directory. */
  output: string | undefined;
  /** Default: the service's last start's (last-start.json), else the serve default. */
  payload: string | undefined;
  /** Default: the service's last start's, if it had one. */
  hostFacts: string | undefined;
  /** Default: the service's last start's (--tls-key), if it had one: the key it serves, redacted wherever it shows. */
  tlsKey: string | undefined;
  version: string;
}

/**
 * The bundle from the state dir alone: no lock, no write there, whether the service runs, stopped or crashed. A state
 * dir this user may not read is said as status says it, with its exit.
 */
/** A file of secrets that could not be read (the manifest's redaction.unread): its secrets are redacted by their shape alone. */
function warnUnread(manifest: Manifest): void {
  for (const file of manifest.redaction.unread ?? []) {
    process.stderr.write(`installer: warning: ${printable(file)}: a secret only it holds is redacted by its shape alone, not by name; read the bundle before sending it\n`);
  }
}

export async function runSupportBundle(options: SupportBundleOptions): Promise<Exit> {
  try {
    return await supportBundle(options);
  } catch (err) {
    const unreadable = stateDirNotReadable(options.stateDir, err);
    if (!unreadable) throw err;
    process.stderr.write(`installer: ${printable(unreadable)}\n`);
    return 2;
  }
}

const CUT = "what was read of it is cut, not a whole .tar.gz; give -o FILE (or -o DIR) to keep it whole";

/**
 * How the bundle's pipe to a reader ended: whole, the reader gone (EPIPE), or its write refused (a device that is full,
 * an I/O error: the error). Any other failure is thrown.
 */
async function streamed(piped: Promise<void>): Promise<"whole" | "reader left" | NodeJS.ErrnoException> {
  try {
    await piped;
    return "whole";
  } catch (err) {
    const { code, syscall } = err as NodeJS.ErrnoException;
    if (code === "EPIPE") return "reader left";
    if (typeof code === "string" && syscall === "write") return err as NodeJS.ErrnoException;
    throw err;
  }
}

/**
 * The bundle piped into stdout; its own failure (a file it reads failing: EIO) thrown as it is, and stdout ended with
 * what came before it: handed to stdout (pipeline destroys each stream with it), it was said by stdout's error handler
 * as "cannot write to stdout: EIO …", naming no file, and the process exited there (cli/epipe.ts). stdout's own
 * errors (EPIPE, a full disk) reject as before.
 */
export async function pipedInto(bundle: Readable, out: NodeJS.WritableStream): Promise<void> {
  let failed: { err: unknown } | undefined;
  const own = async function* () {
    try {
      yield* bundle;
    } catch (err) {
      failed = { err };
    }
  };
  await pipeline(own, out);
  if (failed) throw failed.err;
}

/** The names of stdout, taken as `-` is: a temp file made beside /dev/stdout and renamed over it would replace the link itself. */
const STDOUT_NAMES = new Set(["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]);

/** The descriptor a name of this process's own open files stands for: /dev/stderr, /dev/fd/3, /proc/self/fd/3. */
function ownDescriptor(output: string): number | undefined {
  const std = /^\/dev\/std(in|out|err)$/.exec(output)?.[1];
  if (std) return ["in", "out", "err"].indexOf(std);
  const fd = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))\/fd)\/(\d+)$/.exec(output);
  return fd && (fd[1] === undefined || Number(fd[1]) === process.pid) ? Number(fd[2]) : undefined;
}

/** Of this process's descriptors, stdin, stdout and stderr alone are the caller's: above them are Node's own (its event loop's). */
const CALLERS_DESCRIPTORS = 3;

/** A device, a named pipe or a socket the bundle is written into, open. */
interface Target {
  fd: number;
  close(): Promise<void>;
}

/**
 * What -o names when it is no regular file or folder: a device, a named pipe or a socket (/dev/null, a pipe a reader
 * waits on, /dev/stderr), written into as it is, as tar writes into one; renamed over, it would be replaced by a file
 * (as root, /dev/null itself). One of this process's own descriptors is written to as it is (a socket's cannot be
 * opened again by its name). A terminal is not written to.
 */
export async function targetOf(
  output: string,
  /** The look at the name before it is opened (a test's, to stand for a name swapped in between). */
  look: (path: string) => Promise<{ isFile(): boolean; isDirectory(): boolean }> = stat,
): Promise<Target | "terminal" | "not the caller's" | undefined> {
  const own = ownDescriptor(output);
  let target: Target;
  // A gzip stream written into the event loop's own descriptor crashed the process.
  if (own !== undefined && own >= CALLERS_DESCRIPTORS) return "not the caller's";
  if (own !== undefined) {
    fstatSync(own); // EBADF: not open in this process, said as a file that cannot be written
    target = { fd: own, close: async () => undefined };
  } else {
    if (await look(output).then((s) => s.isFile() || s.isDirectory(), () => true)) return undefined;
    const file = await open(output, constants.O_WRONLY | constants.O_NOCTTY);
    // What was opened is judged, not the look before it: a name swapped in between for a file (or a link to one, as
    // root: /etc/shadow) would be written over in place. Such a one takes the whole-file way (a new file renamed).
    const opened = await file.stat().catch(async (err: unknown) => {
      await file.close();
      throw err;
    });
    if (opened.isFile() || opened.isDirectory()) {
      await file.close();
      return undefined;
    }
    target = { fd: file.fd, close: () => file.close() };
  }
  if (!isatty(target.fd)) return target;
  await target.close();
  return "terminal";
}

async function supportBundle(options: SupportBundleOptions): Promise<Exit> {
  const toStdout = options.output !== undefined && STDOUT_NAMES.has(options.output);
  // Binary on a terminal is noise, and bytes a terminal may obey: refused as gzip refuses it, before any work.
  if (toStdout && process.stdout.isTTY) {
    process.stderr.write(`installer: support-bundle -o ${printable(options.output!)} writes the bundle (a .tar.gz) to stdout, which is a terminal: redirect it (-o - > FILE), pipe it, or give -o FILE\n`);
    return 2;
  }
  let into: Target | "terminal" | "not the caller's" | undefined;
  try {
    into = toStdout || options.output === undefined ? undefined : await targetOf(options.output);
  } catch (err) {
    process.stderr.write(`installer: cannot write the bundle to ${printable(options.output!)} (${printable(notWrittenBecause(err))}): ${writeRemedy(err)}, or give -o another file (- writes it to stdout)\n`);
    return 1;
  }
  if (into === "not the caller's") {
    process.stderr.write(`installer: support-bundle -o ${printable(options.output!)} names a descriptor above stderr, which is the installer's own: give -o FILE, or -o - (stdout) or /dev/stderr\n`);
    return 2;
  }
  if (into === "terminal") {
    process.stderr.write(`installer: support-bundle -o ${printable(options.output!)} names a terminal: the bundle is a .tar.gz; give -o FILE, or -o - and redirect it\n`);
    return 2;
  }
  try {
    return await made(options, toStdout, into);
  } catch (err) {
    const unread = notRead(options.stateDir, err);
    if (unread === undefined) throw err;
    const what = toStdout ? "the bundle on stdout is incomplete, not a whole .tar.gz" : into ? `what went into ${printable(options.output!)} is incomplete, not a whole .tar.gz` : "no bundle written";
    process.stderr.write(`installer: cannot read ${unread}: ${what}\n`);
    return 1;
  } finally {
    await into?.close().catch(() => undefined);
  }
}

/** Of a path, and of an error's words, in a message: the most, in bytes (a path is up to 4096). */
const NOT_READ_BYTES = 512;

/**
 * The file the bundle failed to read and why, "PATH (EIO: an I/O error)" as a terminal may show it, when `err` is such
 * a failure: a file it holds or must know (a secret it redacts) that is there but fails to read (a disk's EIO), which
 * it cannot leave out as it leaves out one it may not read; the state dir's own permissions are said as status says them.
 */
function notRead(stateDir: string, err: unknown): string | undefined {
  const { code, path, syscall } = (err ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== "string" || typeof path !== "string" || syscall === "write" || stateDirNotReadable(stateDir, err)) return undefined;
  const capped = (text: string) => capText(printable(text), NOT_READ_BYTES).text;
  return `${capped(path)} (${capped(notWrittenBecause(err))})`;
}

/** The folder -o puts the bundle in (the working directory without -o), when it is the state dir or a folder below it. */
async function withinStateDir(stateDir: string, output: string | undefined): Promise<string | undefined> {
  const named = output ?? process.cwd();
  const folder = named.endsWith("/") || (await stat(named).then((s) => s.isDirectory(), () => false)) ? named : dirname(named);
  // A folder not there yet is where its nearest existing one really is: a link on the way (to the state dir) is
  // followed as mkdir and the write will follow it.
  const real = async (path: string): Promise<string> => {
    const whole = resolve(path);
    return realpath(whole).catch(async () => (dirname(whole) === whole ? whole : join(await real(dirname(whole)), basename(whole))));
  };
  const below = relative(await real(stateDir), await real(folder));
  if (below === ".." || below.startsWith(`..${sep}`) || isAbsolute(below)) return undefined;
  return output === undefined ? `run from ${process.cwd()} without -o` : `-o ${output}`;
}

async function made(options: SupportBundleOptions, toStdout: boolean, into: Target | undefined): Promise<Exit> {
  // A state dir behind a folder this user may not enter is there: said as an unreadable one (runSupportBundle).
  const isStateDir = await stat(options.stateDir).then((s) => s.isDirectory(), (err: NodeJS.ErrnoException) => (err.code === "EACCES" ? Promise.reject(err) : false));
  if (!isStateDir) {
    process.stderr.write(`installer: no state dir at ${printable(options.stateDir)}: pass the --state-dir the service runs with\n`);
    return 2;
  }
  // Read-only means the bundle too: put in the state dir, it would be a file there that the service did not write.
  const inStateDir = toStdout || into ? undefined : await withinStateDir(options.stateDir, options.output);
  if (inStateDir) {
    process.stderr.write(`installer: support-bundle only reads the state dir: it writes no bundle into it (${printable(inStateDir)}); give -o another folder (- writes it to stdout)\n`);
    return 2;
  }
  // A trailing slash names a folder: made when it is not there yet (as the fleet's --support-bundle DIR is), before
  // the bundle's work.
  if (options.output?.endsWith("/")) {
    const refused = await makeFolder(options.output, `the bundles' folder ${options.output}`).then(() => undefined, (err: Error) => err.message);
    if (refused) {
      process.stderr.write(`installer: ${printable(refused)}\n`);
      return 2;
    }
  }
  const state = await readState(options.stateDir);
  // Run without the service's flags, the bundle still describes its payload and host, not the defaults', and says so.
  const ranWith = await lastStartRanWith(options.stateDir);
  const payload = options.payload ?? ranWith.payload ?? SERVE_FLAGS.payload.default;
  const recalledPayload = options.payload === undefined ? ranWith.payload : undefined;
  let recalledFacts = options.hostFacts === undefined ? ranWith.hostFacts : undefined;
  const recalledKey = options.tlsKey === undefined ? ranWith.tlsKey : undefined;
  let facts: Awaited<ReturnType<typeof offlineFacts>>;
  try {
    facts = await offlineFacts(state, { version: options.version, payload, hostFacts: options.hostFacts ?? recalledFacts });
  } catch (err) {
    // A recorded facts file that is gone (a state dir moved, a demo's folder cleaned) is no reason for no bundle.
    if (recalledFacts === undefined) throw err;
    process.stderr.write(`installer: the host facts file the service last started with cannot be read (${printable((err as Error).message)}); the bundle holds this machine's\n`);
    recalledFacts = undefined;
    facts = await offlineFacts(state, { version: options.version, payload });
  }
  const recalled = [
    ...(recalledPayload ? [`--payload ${recalledPayload}`] : []),
    ...(recalledFacts ? [`--host-facts ${recalledFacts}`] : []),
    ...(recalledKey ? [`--tls-key ${recalledKey}`] : []),
  ];
  const bundle = writeSupportBundle({
    state,
    madeBy: `support-bundle --state-dir ${options.stateDir}${recalled.length > 0 ? ` (${recalled.join(" ")}: as the service last started)` : ""}`,
    version: options.version,
    now: new Date(),
    hostname: facts.host.hostname,
    ...facts,
    service: await serviceFact(options.stateDir, (facts.status as { phase?: unknown }).phase),
    ...(await operatorSecrets(options.tlsKey ?? recalledKey)),
  });
  if (toStdout) {
    // A reader gone before the end (`| head -c 10`, a pager quit) got a cut archive: not the quiet 0 of `openapi | head`.
    goOnWithoutStdout(`stdout closed before the whole bundle was written: ${CUT}`);
    // A write stdout refused (a full disk) is said and ends the command as any command's (cli/epipe.ts).
    if ((await streamed(pipedInto(bundle.stream, process.stdout))) !== "whole") return 1;
    warnUnread(await bundle.manifest);
    return 0;
  }
  if (into) {
    // Streamed into it as it is made: there is no whole-or-nothing for a device or a pipe, as for stdout.
    const ended = await streamed(pipeline(bundle.stream, createWriteStream("", { fd: into.fd, autoClose: false })));
    if (ended === "reader left") {
      process.stderr.write(`installer: the reader of ${printable(options.output!)} went away before the whole bundle was written: ${CUT}\n`);
      return 1;
    }
    if (ended !== "whole") {
      process.stderr.write(`installer: cannot write the bundle to ${printable(options.output!)} (${printable(notWrittenBecause(ended))}): ${writeRemedy(ended)}, or give -o another file (- writes it to stdout)\n`);
      return 1;
    }
    const manifest = await bundle.manifest;
    warnUnread(manifest);
    // Not into the bundle's own stream: -o /dev/stderr.
    const [target, stderr] = [fstatSync(into.fd), fstatSync(2)];
    if (target.dev !== stderr.dev || target.ino !== stderr.ino) {
      process.stderr.write(`installer: the bundle went into ${printable(options.output!)}: ${manifest.files.length + 1} files, phase ${printable(manifest.phase)}\n`);
    }
    return 0;
  }
  const folder = options.output ?? process.cwd();
  const named = await stat(folder).then((s) => s.isDirectory(), () => false);
  let file = named ? join(folder, bundle.name) : folder;
  // In a folder, the bundle's name holds its time, which a later run's does not: its temp file is named after one
  // name for all runs (.stratum-support.tar.gz.PID.TAG.tmp), so that a later run finds what a killed one left.
  const written = named ? join(folder, "stratum-support.tar.gz") : file;
  // Whole or not at all: a bundle cut short by a full disk must not pass for one. Its temp file is made new (O_EXCL) under
  // a name no one can guess: run as root in a folder others write to, a file or a link planted there is never written through.
  const partial = tempPathOf(written, { unguessable: true });
  // A run killed (kill -9) while it wrote left its temp file in the folder, up to a bundle's size: those whose
  // process is gone go, as the fleet's gather's do; one another run is still writing stays.
  await removeInterruptedWritesOf(written, { ofGoneProcesses: true }).catch(() => undefined);
  // Stopped (Ctrl-C, SIGTERM, the terminal gone) while it is written: its temp file goes with it, not left beside.
  const stopped = onStop((signal) => {
    try {
      unlinkSync(partial);
      process.stderr.write(`installer: stopped (${signal}): no bundle written\n`);
    } catch {
      // Renamed into place already: the bundle is whole.
    }
    process.exit(STOPS[signal]);
  });
  try {
    await pipeline(bundle.stream, createWriteStream(partial, { mode: 0o600, flags: "wx" }));
    const manifest = await bundle.manifest;
    // A name of its own making never replaces a bundle already there (two made within the same second); a file
    // the operator named with -o is theirs to replace.
    if (named) file = await placeBeside(partial, file);
    else await rename(partial, file);
    const cut = manifest.leftOut.length > 0 ? `; left out: ${manifest.leftOut.map((l) => l.path).join(", ")} (manifest.json says why)` : "";
    process.stdout.write(`${printable(file)}: ${manifest.files.length + 1} files, phase ${printable(manifest.phase)}${cut}\n`);
    warnUnread(manifest);
    return 0;
  } catch (err) {
    await rm(partial, { force: true });
    // The bundle file's own open or write (ENOSPC on write names no file): said with its name. Anything else as it is.
    const { path, syscall } = err as NodeJS.ErrnoException;
    if (!(path === partial || (path === undefined && syscall === "write"))) throw err;
    process.stderr.write(`installer: cannot write the bundle to ${printable(file)} (${printable(notWrittenBecause(err))}): ${writeRemedy(err)}, or give -o another folder (- writes it to stdout)\n`);
    return 1;
  } finally {
    stopped();
  }
}

function eventLine(line: string): string {
  try {
    const event = JSON.parse(line) as { time?: string; step?: string; type?: string; message?: string };
    return `${event.time ?? ""} ${event.step ?? "-"} ${event.type ?? ""}: ${event.message ?? ""}`;
  } catch {
    return line;
  }
}

/** A short account of a bundle for the person who receives it: node, phase, attempts and verdicts, where it failed and its last lines. */
/** `partial` moved to `file`, or to `file` with -2, -3, … before .tar.gz when one is there: never over another. */
async function placeBeside(partial: string, file: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? file : file.replace(/\.tar\.gz$/, `-${n}.tar.gz`);
    try {
      await link(partial, candidate);
      await rm(partial);
      return candidate;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && n < 100) continue;
      // A file system without hard links (vfat, some FUSE): a look first, then the rename.
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
      if (await stat(candidate).then(() => true, () => false)) continue;
      await rename(partial, candidate);
      return candidate;
    }
  }
}

export function summaryText(file: string, bundle: BundleContents): string {
  const { manifest, status } = bundle;
  const lines = [
    `Support bundle ${file}`,
    `  node:      ${manifest?.hostname ?? status?.hostname ?? "?"} (installer ${manifest?.installer ?? "?"}, Node ${manifest?.node ?? "?"})`,
    `  made:      ${manifest?.madeAt ?? "?"} by ${manifest?.madeBy ?? "?"}`,
    `  phase:     ${status?.phase ?? manifest?.phase ?? "?"}${status?.mode ? `, mode ${status.mode}` : ""}`,
    ...(manifest?.service ? [`  service:   ${manifest.service}`] : []),
    `  attempts:  ${bundle.attempts.length === 0 ? "none" : bundle.attempts.length}`,
    ...bundle.attempts.map(({ attempt, verdict, report }) => {
      const outcome = verdict ? `${verdict.outcome ?? "?"}${verdict.code ? ` ${verdict.code}` : ""}${verdict.step ? ` at ${verdict.step}` : ""}: ${verdict.message ?? "?"}` : (report?.state ?? "no verdict");
      return `    #${attempt} ${report?.kind ?? ""} ${outcome}`;
    }),
  ];
  const failing = [...bundle.attempts].reverse().find((a) => a.verdict?.outcome === "failed" || (a.report?.state === "failed" && !a.verdict));
  if (failing) {
    lines.push(`  failing step: ${failing.verdict?.step ?? failing.report?.step ?? "?"} of attempt ${failing.attempt}`);
    const tail = failing.verdict?.step === "firstboot" && failing.report?.firstbootTail?.length ? failing.report.firstbootTail.slice(-10) : failing.lastEvents.map(eventLine);
    if (tail.length > 0) lines.push("  its last lines:", ...tail.map((line) => `    | ${line}`));
  }
  if (manifest && manifest.leftOut.length > 0) lines.push(`  left out:  ${manifest.leftOut.map((l) => l.path).join(", ")} (manifest.json says why)`);
  const unread = manifest?.redaction?.unread ?? [];
  if (unread.length > 0) lines.push("  unread secret files (their secrets redacted by shape alone: read the bundle before sending it):", ...unread.map((file) => `    ${file}`));
  return `${lines.map(printable).join("\n")}\n`;
}

export async function runSummary(file: string): Promise<Exit> {
  const bundle = await readBundle(file).catch((err: Error) => {
    process.stderr.write(`installer: cannot read ${printable(file)} as a support bundle (.tar.gz): ${printable(err.message)}\n`);
    return undefined;
  });
  if (!bundle) return 2;
  process.stdout.write(summaryText(file, bundle));
  return 0;
}
