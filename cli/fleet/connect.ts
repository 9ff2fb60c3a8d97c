import { setTimeout as sleep } from "node:timers/promises";
import { HttpClientError } from "../../core/http/client.ts";
import { joinTokenProblem } from "../../core/cluster/join-token.ts";
import { nodeYamlToDraft } from "../../core/config/node-yaml.ts";
import { parseYamlSafely } from "../../core/config/yaml.ts";
import { ApiProblem, cappedBlockers, type DraftView, type JoinToken, NodeApi, type Options, type Status, wrongAnswer } from "./api.ts";
import { MODE } from "./compose.ts";
import { changedFields } from "./diff.ts";
import { CELL_ITEMS, type ConnectRow, cell } from "./output/index.ts";
import type { FleetNode, LoadedPlan } from "./plan.ts";
import { fieldProblems } from "./plan-checks.ts";
import { ASK_AT_ONCE, pool } from "./pool.ts";
import type { LocatedProblem } from "./plan-yaml.ts";
import type { FieldError } from "../../core/state/records.ts";

export interface Connected {
  node: FleetNode;
  api: NodeApi;
  status: Status;
  /** When `status` came (performance.now()): a run that begins soon after goes by it instead of asking again. */
  statusAt?: number;
  options: Options;
  draft: DraftView;
  /** The draft's ETag when the fleet read it: the fleet's PUT goes over this one only (If-Match). */
  etag: string;
}

export interface Connection {
  connected: Connected[];
  /** Nodes refused (a certificate not the pinned one, a wrong code), out of reach, or failed (an answer no installer gives). */
  failures: Array<{ node: FleetNode; kind: "refused" | "unreachable" | "failed"; detail: string }>;
  /** The init node's join token, when it is installed already. */
  joinToken?: JoinToken;
  /** The plan's cluster: a join token read later must name it. */
  cluster: string;
  /** What keeps the cluster from installing: releases, blockers, each node's verdict on its draft. */
  problems: string[];
  draftProblems: LocatedProblem[];
  rows: ConnectRow[];
}

const VERIFYING_WAIT_MS = 30_000;

/** Why a request was refused, in words; undefined when it was no refusal. */
export function refusal(error: unknown): string | undefined {
  if (error instanceof HttpClientError && error.kind === "tls-mismatch") return error.message;
  if (error instanceof ApiProblem && (error.status === 401 || error.status === 429)) {
    return error.status === 401 ? "the install code was refused (401): check the plan's code for this node (`node installer.js code` on it prints it)" : `locked out after wrong install codes (429): ${error.message}`;
  }
  return undefined;
}

/** A node that answers 5xx (busy, restarting) is asked this many times in all, a pause between, before it counts failed. */
const BUSY_TRIES = 3;
const BUSY_PAUSE_MS = 500;

/** One after the other, on the one connection the first opened. */
async function connectOne(node: FleetNode): Promise<Connected | Connection["failures"][number]> {
  const api = new NodeApi(node.access);
  const read = async <T>(ask: () => Promise<T>): Promise<T> => {
    for (let tries = 1; ; tries += 1) {
      try {
        return await ask();
      } catch (error) {
        if (!(error instanceof ApiProblem && error.status >= 500) || tries >= BUSY_TRIES) throw error;
        await sleep(BUSY_PAUSE_MS * tries);
      }
    }
  };
  try {
    const status = await read(() => api.settledStatus(VERIFYING_WAIT_MS));
    const statusAt = performance.now();
    const options = await read(() => api.options());
    const { view, etag } = await read(() => api.config());
    return { node, api, status, statusAt, options, draft: view, etag };
  } catch (error) {
    const refused = refusal(error);
    if (refused) return { node, kind: "refused", detail: refused };
    if (wrongAnswer(error)) return { node, kind: "failed", detail: error.message };
    if (error instanceof HttpClientError) return { node, kind: "unreachable", detail: error.message };
    // It answered: reachable, and failed.
    if (error instanceof ApiProblem) return { node, kind: "failed", detail: `its installer answered ${error.status} ${error.code}: ${error.message}` };
    throw error;
  }
}

const withoutToken = (draft: unknown) => {
  const { cluster, ...rest } = (draft ?? {}) as { cluster?: Record<string, unknown> };
  const { joinToken: _, ...clusterRest } = cluster ?? {};
  return { ...rest, ...(cluster ? { cluster: clusterRest } : {}) };
};

/**
 * An installed node's draft as a structured one: its config, or its node.yaml (an unattended install's, a person's raw
 * YAML) as the installer reads it; undefined when it reads as neither (every field then differs).
 */
function installedDraft(view: DraftView): unknown {
  if (view.source !== "yaml") return view.config;
  const parsed = view.yaml === undefined ? undefined : parseYamlSafely(view.yaml);
  return parsed?.ok ? nodeYamlToDraft(parsed.value) : undefined;
}

/** For an installed node: the fields where the plan now says otherwise than what it was installed with. */
export function planChanges(c: Connected): string[] {
  return c.status.phase === "done" ? changedFields(withoutToken(c.node.draft()), withoutToken(installedDraft(c.draft))) : [];
}

/**
 * The fields where an installed node's draft and the plan differ, as a line names them: the first CELL_ITEMS (their
 * names are the node's keys, each cut to a cell), then how many more. A node may name thousands.
 */
export function changedList(changed: readonly string[]): string {
  const more = changed.length - CELL_ITEMS;
  return [...changed.slice(0, CELL_ITEMS).map(cell), ...(more > 0 ? [`and ${more} more`] : [])].join(", ");
}

const open = (c: Connected) => c.status.phase === "configuring" || c.status.phase === "failed";

/** An open node's verdict on its draft; a node that cannot give one is a problem. */
async function draftErrors(c: Connected, token: string | undefined, problems: string[]): Promise<FieldError[]> {
  if (!open(c)) return [];
  const validation = await c.api.validate(c.node.draft(token)).catch((error: Error) => void problems.push(`${c.node.name}: its draft cannot be validated: ${error.message}`));
  const errors = validation?.errors ?? [];
  return token ? [...errors] : errors.filter((e) => !e.field.startsWith("cluster.joinToken"));
}

/** The init node's join token when it is installed already (the joins' drafts are validated with it); a token that cannot be read is a problem. */
async function installedToken(result: Connected | Connection["failures"][number], cluster: string, problems: string[]): Promise<JoinToken | undefined> {
  if (!("api" in result) || result.status.phase !== "done") return undefined;
  const token = await result.api.joinToken().catch((error: Error) => void problems.push(`${result.node.name} is installed, but its join token cannot be read: ${error.message}`));
  // Another cluster's init (a plan pointed at the wrong rack, a node reused): its token would join the nodes there.
  if (token && token.cluster !== cluster) {
    problems.push(
      `${result.node.name} is installed as the init node of cluster ${JSON.stringify(token.cluster)}, not of the plan's cluster ${JSON.stringify(cluster)}: its join token would join the nodes to that cluster. Use the plan of that cluster, or an init node not yet installed`,
    );
    return undefined;
  }
  const malformed = token && joinTokenProblem(token.token);
  if (malformed) {
    problems.push(`${result.node.name} is installed as the init node, but the join token it gives is ${malformed.message}; no join is given it`);
    return undefined;
  }
  return token;
}

function releaseProblems(connected: Connected[]): string[] {
  const releases = new Set(connected.map((c) => c.options.release));
  if (releases.size <= 1 && !releases.has(null)) return [];
  // None loaded anywhere is no difference between them: each node's PAYLOAD_NOT_LOADED says where its payload goes.
  if (releases.size === 1) return [`no node has a payload loaded (${connected.map((c) => c.node.name).join(", ")}): copy the same release's payload to every node`];
  const each = connected.map((c) => `${c.node.name} ${c.options.release ?? "none loaded"}`).join(", ");
  return [`the nodes carry different payload releases (${each}): every node of a cluster installs the same release`];
}

/**
 * An installed node keeps the mode it was installed with, whatever the plan says now (a role moved between runs): one
 * installed as the init node founded its cluster, and the plan's init would found a second one of the same name.
 */
function installedModeProblems(connected: Connected[], nodes: FleetNode[]): string[] {
  const init = nodes.find((n) => n.role === "init");
  return connected.flatMap(({ node, status }) => {
    if (status.phase !== "done" || status.mode === undefined || status.mode === MODE[node.role]) return [];
    if (status.mode === MODE.init && init) {
      return [`${node.name} is installed as ${status.mode} (it founded the cluster), but the plan gives it role: ${node.role}: the plan's init ${init.name} would found a second cluster. Give ${node.name} role: init again (and ${init.name} role: join), or reinstall ${node.name} before it joins`];
    }
    return [`${node.name} is installed as ${status.mode}, but the plan gives it role: ${node.role} (${MODE[node.role]}): an installed node keeps its mode. Give it the role it was installed with, or reinstall it`];
  });
}

/**
 * An installed join keeps the cluster it joined: one of another cluster (a node reused from another rack, a plan pointed
 * at the wrong one) is no member of the plan's, though it says installed. (Another cluster's init: installedToken.)
 */
function installedClusterProblems(connected: Connected[], cluster: string): string[] {
  return connected.flatMap((c) => {
    if (c.status.phase !== "done" || c.node.role !== "join") return [];
    const joined = (installedDraft(c.draft) as { cluster?: { name?: unknown } } | undefined)?.cluster?.name;
    if (typeof joined !== "string" || joined === cluster) return [];
    // The node's text, of any length (a node that lies): cut to a cell, as its other fields are.
    return [`${c.node.name} is installed as a member of cluster ${JSON.stringify(cell(joined))}, not of the plan's cluster ${JSON.stringify(cluster)}: an installed node keeps the cluster it joined. Take it out of the plan, or reinstall it before it joins`];
  });
}

function blockerProblems(connected: Connected[]): string[] {
  // A node's text on a line of its own: capped as a problem's is.
  return connected.filter(open).flatMap((c) => cappedBlockers(c.status.blockers ?? []).map((b) => `${c.node.name}: ${b.code}: ${b.detail}`));
}

function draftSummary(c: Connected, errors: number): string {
  if (c.status.phase === "done") {
    const changed = planChanges(c);
    return changed.length > 0 ? `installed; the plan differs at ${changedList(changed)} (not re-applied)` : "installed";
  }
  if (c.status.phase === "installing") return `installing attempt ${c.status.attempt}`;
  return errors === 0 ? "valid" : `${errors} problem${errors === 1 ? "" : "s"}`;
}

/**
 * SPEC §10.2: every node's certificate, status, options, blockers and release, and its verdict on its draft; nothing
 * is changed. Each node is validated as soon as it is read, on the same connection; the init node is read first,
 * since whether it is installed (and its join token) decides how the joins' drafts are validated.
 */
export async function connectFleet(loaded: LoadedPlan): Promise<Connection> {
  const asked: string[] = [];
  const init = loaded.nodes.find((n) => n.role === "init");
  let initRead!: (token: JoinToken | undefined) => void;
  const token = init ? new Promise<JoinToken | undefined>((resolve) => (initRead = resolve)) : Promise.resolve(undefined);
  const readInit = async (node: FleetNode) => {
    try {
      const result = await connectOne(node);
      initRead(await installedToken(result, loaded.plan.cluster.name, asked));
      return result;
    } finally {
      initRead(undefined); // (read or not: the joins wait for it no longer)
    }
  };
  const checked = await pool(init ? [init, ...loaded.nodes.filter((n) => n !== init)] : loaded.nodes, ASK_AT_ONCE, async (node) => {
    const result = await (node === init ? readInit(node) : connectOne(node));
    return { result, errors: "api" in result ? await draftErrors(result, (await token)?.token, asked) : [] };
  });
  const byNode = new Map(checked.map((c) => [c.result.node, c]));
  const results = loaded.nodes.map((n) => byNode.get(n)!.result);
  const connected = results.filter((r): r is Connected => "api" in r);
  const failures = results.filter((r): r is Connection["failures"][number] => !("api" in r));
  const problems = [...releaseProblems(connected), ...installedModeProblems(connected, loaded.nodes), ...installedClusterProblems(connected, loaded.plan.cluster.name), ...blockerProblems(connected), ...asked];
  const joinToken = await token;
  const errors = new Map(checked.filter((c) => c.errors.length > 0).map((c) => [c.result.node.index, c.errors]));
  const rows = results.map((r): ConnectRow => {
    const base = { node: r.node.name, role: r.node.role, installer: r.node.access.url.host };
    if (!("api" in r)) return { ...base, phase: r.kind, attempt: 0, release: null, blockers: [], draft: "-" };
    const { status, options } = r;
    return { ...base, phase: status.phase, attempt: status.attempt, release: options.release, blockers: (status.blockers ?? []).map((b) => b.code), draft: draftSummary(r, errors.get(r.node.index)?.length ?? 0) };
  });
  const draftProblems = fieldProblems(loaded.plan, errors).map(loaded.locate);
  return { connected, failures, problems, draftProblems, rows, cluster: loaded.plan.cluster.name, ...(joinToken ? { joinToken } : {}) };
}
