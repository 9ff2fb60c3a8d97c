import { basename, dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import { readlink, realpath } from "node:fs/promises";
import { removeInterruptedWritesOf } from "../../core/fs/atomic-write.ts";
import { makeFolder } from "../../core/fs/private-dir.ts";
import { acquireLock, type Lock } from "../../core/fs/state-lock.ts";
import { NotWrittenError, notWrittenBecause, writeRemedy } from "../../core/fs/storage-error.ts";
import { printable } from "../../core/common/printable.ts";
import { goOnWithoutStdout } from "../epipe.ts";
import { UsageError, parseFlags } from "../flags.ts";
import { exitOnSignal, onStop } from "../stops.ts";
import { OutOfFilesError } from "../../core/http/client.ts";
import { openFilesLimit } from "../connections.ts";
import { type Connection, connectFleet } from "./connect.ts";
import { installFleet } from "./install.ts";
import { type FleetOutput, chooseOutput } from "./output/index.ts";
import { type LoadedPlan, loadPlan } from "./plan.ts";
import { bundlesCouldTell, exitCode, summaryRows, writeReport, type Written } from "./report.ts";
import { FleetState, removeInterruptedWrites, StateFileError } from "./state.ts";
import { type BundleEntry, gatherBundles, notWrittenRemedy, writeBundleIndex } from "./support-bundle.ts";
import { EXAMPLE_PLAN, FLEET_USAGE } from "./usage.ts";

interface FleetFlags {
  plan: string;
  dryRun: boolean;
  json: boolean;
  parallel: number;
  rechecks: number;
  state: string;
  /** The command's words as given, for the note that says how to go on. */
  given: string[];
  /** --support-bundle DIR: gather each node's support bundle there instead of installing. */
  supportBundle?: string;
}

function count(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${flag} must be a whole number ≥ ${min}, got "${value}"`);
  return Number(value);
}

function parseFleetFlags(args: string[]): FleetFlags | "help" | "example" {
  // -h is --help, as for every command; after "--" every word is an argument (a plan named -h).
  const end = args.includes("--") ? args.indexOf("--") : args.length;
  const { values, booleans, positionals } = parseFlags(
    args.map((arg, i) => (arg === "-h" && i < end ? "--help" : arg)),
    { parallel: { default: "1", help: "" }, rechecks: { default: "1", help: "" }, state: { help: "" }, "support-bundle": { help: "" } },
    {},
    { "dry-run": { type: "boolean" }, json: { type: "boolean" }, example: { type: "boolean" }, help: { type: "boolean" } },
  );
  if (booleans.help) return "help";
  if (booleans.example) return "example";
  if (positionals.length !== 1) throw new UsageError("fleet takes one PLAN.yaml (fleet --help describes it, fleet --example prints one)");
  const plan = positionals[0]!;
  if (plan === "") throw new UsageError("fleet's PLAN.yaml is an empty path (an unset variable?)");
  if (plan === "-") throw new UsageError("fleet reads its plan from a file, not from stdin (-): the plan's file: codes, its state file and its report are beside it; write the plan to a file and give its path");
  const state = values.state ?? join(dirname(plan), `${basename(plan, extname(plan))}.fleet-state.json`);
  if (basename(state) === REPORT_NAME) throw new UsageError(`--state cannot be named ${REPORT_NAME}: the run's report is written beside the state file under that name, over it`);
  return {
    plan,
    dryRun: booleans["dry-run"]!,
    json: booleans.json!,
    parallel: count("parallel", values.parallel!, 1),
    rechecks: count("rechecks", values.rechecks!, 0),
    state,
    given: args,
    ...(values["support-bundle"] !== undefined ? { supportBundle: values["support-bundle"] } : {}),
  };
}

/** Where a path's symbolic links lead, the last one's target not made yet included (a first run's --state). */
async function throughLinks(path: string, hops = 0): Promise<string> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== undefined) return real;
  const link = await readlink(path).catch(() => undefined);
  return link === undefined || hops > 8 ? path : throughLinks(resolve(dirname(path), link), hops + 1);
}

/** The run's report, beside its state file. */
const REPORT_NAME = "fleet-report.json";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * How a run under its lock takes a stop (Ctrl-C, SIGTERM: a CI job's time-out, `kill`; SIGHUP: the ssh session
 * gone): before the installs begin, the run ends there; once installLocked set `installing`, `controller` is aborted
 * with the signal's name and the run ends as on Ctrl-C (the state file written, the lock let go). The installs go on
 * on the nodes.
 */
interface Stop {
  controller: AbortController;
  installing: boolean;
}

/**
 * A word as a shell reads it back unchanged: as it is when plain, else in single quotes; one with a character a
 * terminal must not be sent (an escape sequence's ESC, a bidi control, one that shows nothing) as $'…' with that
 * character written out (\x1b, \u202e, \U000e0041: bash's, zsh's and ksh's own escapes), so what is pasted names
 * the same file. Only ASCII is \x: $'\x85' is the byte 0x85, not the character U+0085 printable writes \x85.
 */
export function shellWord(word: string): string {
  if (/^[\w./:=@%+-]+$/.test(word)) return word;
  if (printable(word) === word) return `'${word.replaceAll("'", `'\\''`)}'`;
  return `$'${[...word].map((c) => (printable(c) !== c ? shellEscape(c.codePointAt(0)!) : c === "'" || c === "\\" ? `\\${c}` : c)).join("")}'`;
}

function shellEscape(code: number): string {
  const hex = code.toString(16);
  return code < 0x80 ? `\\x${hex.padStart(2, "0")}` : code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\U${hex.padStart(8, "0")}`;
}

/** This installer's command as the operator can type it again from where they are: `node installer.js`, or its path. */
function installerCommand(): string {
  const script = process.argv[1] ?? "installer.js";
  const near = relative(process.cwd(), script);
  return `node ${shellWord(near && !near.startsWith("..") && !isAbsolute(near) ? near : script)}`;
}

/** The run's own command, every flag kept (--json, --parallel, --rechecks, --state): what it did then it does again. */
const runAgain = (flags: FleetFlags) => `${installerCommand()} fleet ${flags.given.map(shellWord).join(" ")}`;

/** The one line a run ends with when the nodes' support bundles could tell what went wrong: how to gather them. */
const gatherHint = (flags: FleetFlags) =>
  `gather what happened: ${installerCommand()} fleet ${shellWord(flags.plan.startsWith("-") ? `./${flags.plan}` : flags.plan)} --support-bundle support-bundles`;

/** `--support-bundle DIR`: every node's bundle and DIR/index.json; 0 when every bundle came, 1 when one did not. */
async function supportBundles(loaded: LoadedPlan, flags: FleetFlags & { supportBundle: string }, out: FleetOutput): Promise<number> {
  const dir = flags.supportBundle;
  // Ctrl-C (SIGTERM, SIGHUP) stops the downloads, keeps what came and still writes the index (a second one exits at once).
  const controller = new AbortController();
  const release = onStop((signal) => controller.abort(signal));
  // Read before: out of files, /proc/self/limits cannot be read either.
  const limit = openFilesLimit();
  let entries: BundleEntry[];
  try {
    entries = await gatherBundles(loaded.nodes, dir, flags.parallel, out, controller.signal);
  } finally {
    release();
  }
  // An index the folder takes no more (a full disk) is said on the run's last line, with what to do; the nodes' lines said the rest.
  const index = await writeBundleIndex(dir, flags.plan, entries, new Date()).then(
    (path) => `index: ${path}`,
    (error: unknown) => {
      if (!(error instanceof NotWrittenError)) throw error;
      return `no index: ${error.message}: ${notWrittenRemedy(error)}`;
    },
  );
  const gathered = entries.filter((e) => "file" in e).length;
  const whole = gathered === entries.length && index.startsWith("index: ");
  const exit = controller.signal.aborted ? exitOnSignal(controller.signal.reason) : whole ? 0 : 1;
  out.note(null, whole ? "info" : "error", `${gathered} of ${plural(entries.length, "support bundle")} gathered in ${dir}${controller.signal.aborted ? " (stopped)" : ""}; ${index}`);
  // This machine's limit, not the nodes': said once, with what to do, beside each node's line.
  if (entries.some((e) => "error" in e && /\bE[MN]FILE\b/.test(e.detail))) {
    out.note(null, "error", `this machine ran out of open files for some of them (the open-files limit${limit === undefined ? "" : ` is ${limit}`}): run this again with a lower --parallel, or raise it (ulimit -n in this shell)`);
  }
  return exit;
}

/**
 * One run at a time on a state file: two would each start what the other follows, and each write the file over the
 * other's. A dry run changes nothing and takes no lock; a run killed leaves a lock its next run takes over.
 */
async function install(loaded: LoadedPlan, given: FleetFlags, out: FleetOutput): Promise<number> {
  // A state file reached through a symbolic link is written where the link points, not over the link.
  const flags = { ...given, state: await throughLinks(given.state) };
  const stop: Stop = { controller: new AbortController(), installing: false };
  // A dry run installs nothing: a stop ends it as it ends any command.
  if (flags.dryRun) return installLocked(loaded, flags, out, stop);
  const path = `${flags.state}.lock`;
  let lock: Lock;
  try {
    // The state file's folder, made as its own write would make it (--state in a folder not made yet).
    await makeFolder(dirname(path), `the state file's folder ${dirname(path)}`, 0o755);
    lock = await acquireLock(
      path,
      (pid) =>
        new FleetLockedError(
          `another fleet run (pid ${pid}) is installing from ${flags.state} (its lock: ${path}): two would drive the same nodes at once; wait for it to end, or stop it (Ctrl-C stops watching, not the installs) and run this again; if no run is going on, remove the lock`,
        ),
    );
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    out.note(null, "error", error instanceof FleetLockedError || typeof code !== "string" ? error.message : `the state file's lock ${path} cannot be written (${notWrittenBecause(error)}): ${writeRemedy(error)}, or give --state in a folder this user can write`);
    out.note(null, "error", "nothing was changed on any node");
    return 2;
  }
  // One stop for the whole run under the lock (a second exits at once). Once the installs ended, one lets the state
  // file and the report be written (the controller aborted then stops nothing).
  const released = onStop((signal) => {
    const installing = stop.installing;
    stop.controller.abort(signal);
    if (installing) return;
    // Stopped before the installs begin (a node slow to answer its checks): nothing was started, the lock goes. The
    // checks ending meanwhile (before the exit) begin no install: installLocked finds the controller aborted.
    out.note(null, "warn", `stopped (${signal}) while the nodes were checked: nothing was changed on any node`);
    void lock.release().finally(() => process.exit(exitOnSignal(signal)));
  });
  try {
    // Under the lock no other run writes the state file: a temp file of its writes is one a killed run left. The
    // report's name is shared by the runs of every --state in this folder, which hold other locks: its temp files go
    // only when their writer is gone.
    await Promise.all([removeInterruptedWrites(flags.state), removeInterruptedWritesOf(join(dirname(flags.state), REPORT_NAME), { ofGoneProcesses: true }).catch(() => undefined)]);
    return await installLocked(loaded, flags, out, stop);
  } finally {
    released();
    await lock.release().catch(() => undefined);
  }
}

class FleetLockedError extends Error {}

async function installLocked(loaded: LoadedPlan, flags: FleetFlags, out: FleetOutput, stop: Stop): Promise<number> {
  let state: FleetState;
  try {
    state = await FleetState.open(flags.state, loaded.file, loaded.hash);
  } catch (error) {
    if (!(error instanceof StateFileError)) throw error;
    out.note(null, "error", error.message);
    return 2;
  }
  state.onTrouble = (message) => out.note(null, "warn", `${message} (the installs sent go on; no other is sent until its start is recorded in it; the state file is written again at the end)`);
  if (state.previousPlanHash) out.note(null, "warn", `the plan changed since ${flags.state} was written: installed nodes keep what they were installed with; the others get the plan as it is now`);

  // Read before: out of files, /proc/self/limits cannot be read either.
  const limit = openFilesLimit();
  let connection: Connection;
  try {
    connection = await connectFleet(loaded);
  } catch (error) {
    if (!(error instanceof OutOfFilesError)) throw error;
    // This machine's limit, not the nodes: one line, not each node out of reach.
    const which = error.code === "ENFILE" ? "the system's open-files limit (fs.file-max)" : `the open-files limit${limit === undefined ? "" : ` is ${limit}`}`;
    out.note(null, "error", `this machine ran out of open files (${which}; the fleet keeps a connection to each of the plan's ${loaded.nodes.length} nodes) while it connected to them: raise it (${error.code === "ENFILE" ? "sysctl fs.file-max" : "ulimit -n in this shell"}), then run this again`);
    out.note(null, "error", "nothing was changed on any node");
    return 2;
  }
  out.nodes(connection.rows);
  for (const failure of connection.failures) {
    out.change(failure.node.name, { phase: failure.kind });
    out.note(failure.node.name, "error", `${failure.kind}: ${failure.detail}`);
  }
  for (const problem of connection.problems) out.note(null, "error", problem);
  if (connection.draftProblems.length > 0) out.problems(loaded.file, connection.draftProblems, `${loaded.file}: the nodes found ${plural(connection.draftProblems.length, "problem")} in their drafts`);
  if (connection.failures.length > 0 || connection.problems.length > 0 || connection.draftProblems.length > 0) {
    out.note(null, "error", "nothing was changed on any node");
    // The nodes' own trouble (one out of reach or failing, a blocker, a node installed otherwise): their bundles could
    // tell. Not for a refusal alone, nor for the plan's drafts' problems, said above field by field.
    if (bundlesCouldTell(connection.failures) || connection.problems.length > 0) out.note(null, "info", gatherHint(flags));
    return 2;
  }
  if (flags.dryRun) {
    const pending = connection.joinToken ? "" : " (the joins without their join token, which the init node issues once installed)";
    out.note(null, "info", `dry run: every node validated its draft${pending}; nothing was changed`);
    return 0;
  }

  const { controller } = stop;
  // Stopped while the nodes were checked: that stop said nothing was changed, and exits.
  if (controller.signal.aborted) return exitOnSignal(controller.signal.reason);
  stop.installing = true;
  let run;
  try {
    run = await installFleet(connection, { out, state, rechecks: flags.rechecks, signal: controller.signal }, flags.parallel);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    const unsaved = await stateProblem(state);
    out.note(null, "warn", `stopped watching${controller.signal.reason === "SIGINT" ? "" : ` (${String(controller.signal.reason)})`}; the installs that run go on on their nodes. To follow them and go on: ${runAgain(flags)}`);
    if (unsaved) out.note(null, "error", unsaved);
    return exitOnSignal(controller.signal.reason);
  }
  // Whatever the disk says, the run's outcome is told: the nodes keep theirs, and a run again goes by them.
  const unsaved = await stateProblem(state);
  const { outcomes, answers, joinToken } = run;
  // A run whose state file or report did not reach the disk did not do all it says, even with every node installed.
  const nodesExit = exitCode(outcomes);
  const reportedExit = unsaved ? Math.max(nodesExit, 1) : nodesExit;
  const reportPath = join(dirname(flags.state), REPORT_NAME);
  let movedAside: Written["movedAside"];
  const unreported = await writeReport(reportPath, loaded, connection, outcomes, reportedExit, joinToken ? [joinToken] : [], answers).then(
    (written) => void (movedAside = written.movedAside),
    (error: NodeJS.ErrnoException) => {
      if (typeof error?.code !== "string") throw error;
      return `fleet-report.json cannot be written to ${reportPath} (${notWrittenBecause(error)}): ${writeRemedy(error)}, or give --state in another folder (the report goes beside the state file); each node keeps its verdict and report (GET /v1/installer/install/report)`;
    },
  );
  const exit = unreported ? Math.max(reportedExit, 1) : reportedExit;
  for (const problem of [unsaved, unreported]) if (problem) out.note(null, "error", problem);
  if (movedAside) {
    const whose = movedAside.cluster === undefined ? "a file that is not this cluster's report" : `cluster ${movedAside.cluster}'s report (another plan's, its state file in the same folder)`;
    out.note(null, "info", `${reportPath} held ${whose}: moved to ${movedAside.to}, not written over`);
  }
  const installed = [...outcomes.values()].filter((o) => o.kind === "installed").length;
  out.summary(summaryRows(loaded, outcomes), exit, `${installed} of ${plural(loaded.nodes.length, "node")} installed; ${unreported ? "no report written" : `report: ${reportPath}`}`);
  if (bundlesCouldTell(outcomes.values()) || run.joinTokenUnusable) out.note(null, "info", gatherHint(flags));
  // The way on, last: a run again resumes (SPEC §10), which a first-time operator cannot guess from an exit 1.
  if (exit !== 0) out.note(null, "info", `once what the errors above name is fixed, run it again: nodes installed are left alone, the others go on from where they are: ${runAgain(flags)}`);
  return exit;
}

/** The state file's last write: undefined once on disk, else what keeps it off (and what to do), said once, here. */
const stateProblem = (state: FleetState): Promise<string | undefined> => {
  state.onTrouble = undefined;
  return state.close().then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof StateFileError) return error.message;
      throw error;
    },
  );
};

/** `node installer.js fleet PLAN.yaml`: a whole cluster from one plan, through each node's public API (SPEC §10). */
export async function runFleet(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const flags = parseFleetFlags(args);
  if (flags === "help" || flags === "example") {
    process.stdout.write(flags === "help" ? FLEET_USAGE : EXAMPLE_PLAN);
    return 0;
  }
  const result = await loadPlan(flags.plan, env);
  if (!result.ok) {
    chooseOutput(flags.json, new Map(), env).problems(flags.plan, result.problems, `${flags.plan}: ${plural(result.problems.length, "problem")}; no node was contacted`);
    return 2;
  }
  const goingOn =
    flags.supportBundle === undefined
      ? `the fleet goes on without printing; its exit code and ${join(dirname(flags.state), REPORT_NAME)} tell how it ended`
      : `the fleet goes on gathering without printing; its exit code and ${join(flags.supportBundle, "index.json")} tell how it ended`;
  goOnWithoutStdout(`stdout was closed (its reader went away): ${goingOn}`, { refused: goingOn });
  const out = chooseOutput(flags.json, new Map(result.loaded.nodes.map((n) => [n.name, n.role])), env);
  try {
    const { supportBundle } = flags;
    return supportBundle === undefined ? await install(result.loaded, flags, out) : await supportBundles(result.loaded, { ...flags, supportBundle }, out);
  } finally {
    out.close();
  }
}
