import { constants } from "node:fs";
import { lstat, open, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { capText, jsonNotKept } from "../../core/common/cut-text.ts";
import { printableJsonText } from "../../core/common/printable.ts";
import { writeFileAtomic } from "../../core/fs/atomic-write.ts";
import { createRedactor } from "../../core/secrets/index.ts";
import { ApiProblem, type NodeApi, PROBLEM_CAPS, type Report, type Verdict, wrongAnswer } from "./api.ts";
import type { Connection } from "./connect.ts";
import type { Outcome } from "./node-run.ts";
import { MESSAGE_BYTES, type SummaryRow } from "./output/index.ts";
import type { LoadedPlan } from "./plan.ts";
import { ASK_AT_ONCE, pool } from "./pool.ts";

/** SPEC §10.6: 0 every node installed; 2 a node unreachable or refused; 1 any other failure. */
export function exitCode(outcomes: ReadonlyMap<string, Outcome>): 0 | 1 | 2 {
  const kinds = [...outcomes.values()].map((o) => o.kind);
  if (kinds.some((k) => k === "unreachable" || k === "refused")) return 2;
  return kinds.every((k) => k === "installed") ? 0 : 1;
}

/**
 * Whether the nodes' support bundles could tell what went wrong (a run that failed ends with the command that gathers
 * them): a node failed, or went out of reach. Not the fleet's own trouble (its state file or report not written, a
 * node not started as its start could not be recorded: "stopped"), nor a node that refused the plan's certificate or
 * install code (its bundle is asked with the same, and refused the same way). The same for the nodes' outcomes at the
 * end of a run and for the checks' failures before one.
 */
export function bundlesCouldTell(ended: Iterable<{ kind: string }>): boolean {
  return [...ended].some((o) => o.kind === "failed" || o.kind === "unreachable");
}

export function summaryRows(loaded: LoadedPlan, outcomes: ReadonlyMap<string, Outcome>): SummaryRow[] {
  return loaded.nodes.map((node) => {
    const o = outcomes.get(node.name);
    const elapsedSeconds = o?.startedAt && o.endedAt ? (o.endedAt - o.startedAt) / 1000 : null;
    return { node: node.name, role: node.role, outcome: o?.kind ?? "not run", attempt: o?.attempt ?? 0, elapsedSeconds, detail: o?.detail ?? "" };
  });
}

/** A node's latest verdict and report as its installer gives them; null for what it cannot give. */
export interface NodeAnswers {
  /** Undefined when it has none to give (no attempt, or one that still runs). */
  verdict: Verdict | null | undefined;
  report: Report | null;
  /** Why the verdict or report is null, and whether the node refused it (answered a problem) or did not answer: not in fleet-report.json. */
  verdictProblem?: Unanswered;
  reportProblem?: Unanswered;
}

interface Unanswered {
  refused: boolean;
  detail: string;
}

/**
 * A refusal is the node's answer (it has no such verdict or report), and so is another status (a redirect, a 204) or
 * an answer no installer gives (the wrong shape, not JSON, over a cap): a node that lies is not believed. A 5xx, a 429
 * or no answer says nothing either way.
 */
const unanswered = (error: unknown): Unanswered =>
  error instanceof ApiProblem
    ? { refused: error.status < 500 && error.status !== 429, detail: `${error.status} ${error.code}: ${error.message}` }
    : { refused: wrongAnswer(error), detail: (error as Error).message };

/**
 * Asked one after the other, on the connection the node's last request left open; the verdict only when the run did
 * not end with one (a node installed before the fleet came): the one its last attempt ended with is the latest. The
 * report is of the verdict's attempt; without a verdict, the latest.
 */
export async function nodeAnswers(api: NodeApi, verdict?: Verdict): Promise<NodeAnswers> {
  const answers: NodeAnswers = { verdict: verdict ? keptVerdict(verdict) : null, report: null };
  if (!verdict) {
    try {
      const asked = await api.verdict();
      answers.verdict = asked && keptVerdict(asked);
    } catch (error) {
      answers.verdictProblem = unanswered(error);
    }
  }
  try {
    answers.report = kept(await api.report(answers.verdict?.attempt));
  } catch (error) {
    answers.reportProblem = unanswered(error);
  }
  return answers;
}

/** The most of one node's report fleet-report.json keeps (and the fleet holds until it is written): a node's own is ≈ 10–100 KB. */
export const REPORT_KEEP_BYTES = 1024 * 1024;

/**
 * A report as the fleet keeps it: whole, or, when it is over REPORT_KEEP_BYTES or cannot be written as JSON at all
 * (nested deeper than a stack goes), its attempt, state and verdict, saying why the rest was left on the node. A
 * node's answer never costs the run its summary or its fleet-report.json, nor the driver memory by the node.
 */
function kept(report: Report): Report {
  const why = jsonNotKept(report, REPORT_KEEP_BYTES, "a node");
  if (why === undefined) return report;
  const omitted = `the rest of this report is left on the node: ${why}; read it there (GET /v1/installer/install/report?attempt=${report.attempt})`;
  return { attempt: report.attempt, state: report.state, verdict: report.verdict && keptVerdict(report.verdict), omitted } as unknown as Report;
}

/** The most of a verdict the fleet keeps: an installer's is a few KB (a message, a check a line each). */
const VERDICT_KEEP_BYTES = 64 * 1024;

/**
 * A verdict as the fleet keeps it: whole, or, over VERDICT_KEEP_BYTES (a node that lies: megabytes of message,
 * thousands of checks), its fields with its message and checks cut (as a line shows them), saying so and where the
 * whole is. Its outcome, attempt and code, which the fleet goes by, are kept as they are.
 */
function keptVerdict(verdict: Verdict): Verdict {
  const why = jsonNotKept(verdict, VERDICT_KEEP_BYTES, "a verdict");
  if (why === undefined) return verdict;
  const { checks, ...rest } = verdict;
  const cut = (text: string, bytes: number) => capText(text, bytes).text;
  return {
    ...rest,
    message: cut(verdict.message, MESSAGE_BYTES),
    ...(checks ? { checks: checks.slice(0, PROBLEM_CAPS.items).map((check) => ({ ...check, ...(check.detail === undefined ? {} : { detail: cut(check.detail, PROBLEM_CAPS.itemBytes) }) })) } : {}),
    omitted: `cut: ${why}; read it whole on the node (GET /v1/installer/install/verdict?attempt=${verdict.attempt})`,
  } as Verdict;
}

/**
 * A node counted installed, against its verdict and its report of that verdict's attempt (asked anyway for
 * fleet-report.json): `said` is what the fleet went by (the verdict it gave, or its status). Undefined when they
 * agree; else why the node is not installed (`disagrees`: an installer's answers agree, a node whose do not is not
 * believed; a refusal to give them is an answer too), or what could not be read to confirm it (`unconfirmed`: the
 * node did not answer).
 */
export function confirmation(said: string, got: NodeAnswers): { disagrees: string } | { unconfirmed: string } | undefined {
  const { verdict, report } = got;
  const disagree = (says: string) => ({ disagrees: `its answers disagree: ${said}; ${says}` });
  const outcome = (v: Verdict) => `${v.outcome} (${v.code ?? "no code"}: ${v.message})`;
  if (got.verdictProblem) return got.verdictProblem.refused ? disagree(`asked for its verdict, it answered ${got.verdictProblem.detail}`) : { unconfirmed: `its verdict cannot be read (${got.verdictProblem.detail})` };
  if (!verdict) return disagree("it gives no verdict (no attempt finished)");
  if (verdict.outcome !== "succeeded") return disagree(`its verdict says attempt ${verdict.attempt} ${outcome(verdict)}`);
  if (got.reportProblem) {
    const asked = `asked for attempt ${verdict.attempt}'s report`;
    return got.reportProblem.refused ? disagree(`${asked}, it answered ${got.reportProblem.detail}`) : { unconfirmed: `its report of attempt ${verdict.attempt} cannot be read (${got.reportProblem.detail})` };
  }
  if (!report) return { unconfirmed: `its report of attempt ${verdict.attempt} cannot be read` };
  if (report.attempt !== verdict.attempt) return disagree(`asked for attempt ${verdict.attempt}'s report, it gave attempt ${report.attempt}'s`);
  const reported = report.verdict;
  if (reported?.outcome === "succeeded" && reported.attempt === verdict.attempt) return undefined;
  return disagree(`its report of attempt ${verdict.attempt} says ${reported ? `it ${outcome(reported)}` : `it has no verdict (${report.state})`}`);
}

interface ReportEntry {
  name: string;
  role: string;
  installer: string;
  outcome: Outcome | null;
  verdict: unknown;
  report: unknown;
}

interface ReportDocument {
  plan: string;
  planHash: string;
  cluster: string;
  writtenAt: string;
  exit: number;
  nodes: ReportEntry[];
}

const redacted = (value: object, secrets: readonly string[]): unknown => JSON.parse(createRedactor(() => secrets).text(JSON.stringify(value)));

/**
 * The report's text, the fleet's secrets redacted: each node's entry of the join token and its own install code
 * (a node is never sent another's, so its answers cannot carry one), the rest of every code. Linear in the
 * nodes: the whole text searched for every node's code took 1.7 s of the driver's CPU at 1,000 nodes.
 */
export function reportText(document: ReportDocument, fleetSecrets: readonly string[], codeOf: (node: string) => string): string {
  const { nodes, ...head } = document;
  const all = [...fleetSecrets, ...nodes.map((n) => codeOf(n.name))];
  const entries = nodes.map((entry) => redacted(entry, [...fleetSecrets, codeOf(entry.name)]));
  return `${printableJsonText(JSON.stringify({ ...(redacted(head, all) as object), nodes: entries }, null, 2))}\n`;
}

/**
 * fleet-report.json: each node's outcome, latest verdict and report as its installer gives them (redacted
 * there), and the fleet's own secrets (install codes, the join token) redacted once more. `read` has what was
 * asked of a node as its run ended; the others are asked now.
 */
export async function writeReport(path: string, loaded: LoadedPlan, connection: Connection, outcomes: ReadonlyMap<string, Outcome>, exit: number, secrets: string[], read: ReadonlyMap<string, Promise<NodeAnswers>> = new Map()): Promise<Written> {
  const nodes = await pool(connection.connected, ASK_AT_ONCE, async (c) => ({
    name: c.node.name,
    role: c.node.role,
    installer: c.node.access.url.origin,
    outcome: outcomes.get(c.node.name) ?? null,
    ...(({ verdict, report }) => ({ verdict, report }))(await (read.get(c.node.name) ?? nodeAnswers(c.api))),
  }));
  const codes = new Map(loaded.nodes.map((n) => [n.name, n.access.code]));
  const document = { plan: loaded.file, planHash: loaded.hash, cluster: loaded.plan.cluster.name, writtenAt: new Date().toISOString(), exit, nodes };
  const movedAside = await moveAsideOthers(path, document.cluster, document.planHash);
  try {
    await writeFileAtomic(path, reportText(document, secrets, (name) => codes.get(name)!));
  } catch (err) {
    // Not written (a full disk): the one found there goes back, as if this run had not come (its failure says no move).
    if (movedAside) await rename(movedAside.to, path).catch(() => undefined);
    throw err;
  }
  return movedAside ? { movedAside } : {};
}

/** What writing the report did besides: another cluster's report it found in its place, moved aside (`to`). */
export interface Written {
  movedAside?: { cluster: string | undefined; to: string };
}

/**
 * What is read of a file found where the report goes: a report's head (its plan, planHash and cluster) comes first, a
 * plan's path and all; its nodes after it may be megabytes (a node's report is 10–100 KB, kept up to 1 MiB).
 */
const REPORT_HEAD_BYTES = 64 * 1024;
/** Where a report's head ends, as reportText writes it (two spaces: a key of the document itself, not a node's). */
const NODES_KEY = ',\n  "nodes": ';

/**
 * fleet-report.json is named by SPEC, and two plans in one folder (their state files beside them) write it in the same
 * place: another cluster's report there, or a file that is no report (a link, a named pipe too), is moved aside to
 * fleet-report.<cluster>.json (or .other.json; -2, -3… when taken), never written over. The same cluster's (a run
 * again) is the one replaced; a folder stays, and the write then fails naming it.
 */
async function moveAsideOthers(path: string, cluster: string, planHash: string): Promise<Written["movedAside"]> {
  let text: string | undefined;
  try {
    // Read only when a plain file: a named pipe would hang the run's end, a link is no report of ours. A folder is
    // left where it is: the write fails naming it, as any that the disk refuses.
    const found = await lstat(path);
    if (found.isDirectory()) return undefined;
    if (!found.isFile()) throw Object.assign(new Error("not a file"), { code: "ENOTREPORT" });
    // Judged again by what was opened: a pipe or a link put there since the look is neither waited on nor followed.
    const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
      // A link, or a file this user may not read (another's, made with sudo): not read, moved aside as it is.
      throw err.code === "ELOOP" || err.code === "EACCES" || err.code === "EPERM" ? Object.assign(err, { code: "ENOTREPORT" }) : err;
    });
    try {
      if (!(await file.stat()).isFile()) throw Object.assign(new Error("not a file"), { code: "ENOTREPORT" });
      const head = Buffer.alloc(REPORT_HEAD_BYTES);
      const { bytesRead } = await file.read(head, 0, REPORT_HEAD_BYTES, 0);
      text = head.subarray(0, bytesRead).toString("utf8");
    } finally {
      await file.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    if ((err as NodeJS.ErrnoException).code !== "ENOTREPORT") throw err;
  }
  let found: { cluster?: unknown; planHash?: unknown } | undefined;
  try {
    // The head alone when the nodes follow it (a report of any size); else the whole text, a file of a few bytes.
    const nodesAt = text === undefined ? -1 : text.indexOf(NODES_KEY);
    found = text === undefined ? undefined : (JSON.parse(nodesAt === -1 ? text : `${text.slice(0, nodesAt)}\n}`) as typeof found);
  } catch {
    found = undefined;
  }
  const theirs = typeof found?.cluster === "string" ? found.cluster : undefined;
  if (theirs === cluster || (found?.planHash === planHash && typeof planHash === "string")) return undefined;
  const named = theirs !== undefined && /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(theirs) ? theirs : "other";
  const stem = join(dirname(path), basename(path, ".json"));
  for (let n = 1; ; n++) {
    const to = `${stem}.${named}${n === 1 ? "" : `-${n}`}.json`;
    const taken = await lstat(to).then(() => true, (err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? false : Promise.reject(err)));
    if (taken) continue;
    await rename(path, to);
    return { cluster: named === "other" ? undefined : theirs, to };
  }
}
