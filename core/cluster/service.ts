/**
 * The cluster as this node sees it (SPEC §6): an ha-init node founds it with a secret and hands out the join
 * token once installed; a joining node checks it before anything is written, in preflight or on demand.
 */
import { isDeepStrictEqual } from "node:util";
import { type Document, type Node, Scalar, isMap, parse, parseDocument } from "yaml";
import { nodeYamlToDraft, parseYamlDocument, type Draft } from "../config/index.ts";
import { InstallerError } from "../common/errors.ts";
import type { Logger, Origin } from "../common/log.ts";
import type { ClusterRecord, AttemptRecord, DraftRecord } from "../state/records.ts";
import type { Slice } from "../state/store.ts";
import { phaseOf } from "../attempts/admission.ts";
import type { JoinCheckResult } from "./join-codes.ts";
import { runJoinCheck } from "./join-check.ts";
import { formatJoinToken, generateSecret, isBareSecret } from "./join-token.ts";
import { certificateSha256 } from "../http/client.ts";

interface JoinTokenView {
  token: string;
  joinAddress: string;
  cluster: string;
  release: string | null;
}

interface ClusterDeps {
  cluster: Slice<ClusterRecord | undefined>;
  draft: { record(): DraftRecord; analysis(): { mode?: string; errors: { field: string; message: string; hint?: string }[] } };
  attempts: () => readonly AttemptRecord[];
  release: () => string | null;
  readinessUrl: string;
  now: () => Date;
  log: Logger;
}

export interface Cluster {
  /** The secret to add to an ha-init node.yaml whose draft brought none: generated once, kept for every retry. */
  foundingSecret(): Promise<string | undefined>;
  /** A hyperconverged-join draft's join check, in `attempt`'s preflight; undefined for any other mode. */
  preflightCheck(signal: AbortSignal, attempt: number): Promise<JoinCheckResult | undefined>;
  /** POST /cluster/join-check: the draft's cluster fields checked, nothing changed. */
  check(signal?: AbortSignal, origin?: Origin): Promise<JoinCheckResult>;
  /** GET /cluster/join-token. */
  joinToken(signal?: AbortSignal): Promise<JoinTokenView>;
  /** The secrets the cluster adds to what is redacted. */
  secrets(): string[];
}

/**
 * node.yaml with the founding secret as `cluster.join_token`: one line added, every other line as it was (what GET
 * /config/node.yaml showed, for a firstboot that reads it line by line). A cluster section that takes no line (a flow
 * map) is written back by the YAML library instead: the same values and comments, no line folded.
 */
export function withJoinToken(nodeYaml: string, secret: string): string {
  const doc = parseDocument(nodeYaml);
  const tree = doc.toJS() as { cluster?: Record<string, unknown> } | null;
  const expected = { ...tree, cluster: { ...tree?.cluster, join_token: secret } };
  const added = withLine(doc, nodeYaml, `join_token: ${JSON.stringify(secret)}`);
  if (added !== undefined && sameTree(added, expected)) return added;
  doc.setIn(["cluster", "join_token"], Object.assign(doc.createNode(secret), { type: Scalar.QUOTE_DOUBLE }));
  return doc.toString({ lineWidth: 0 });
}

/** The text with `line` added to its block `cluster` map (indented as that map's first key), or a `cluster:` section appended. */
function withLine(doc: Document, text: string, line: string): string | undefined {
  if (!isMap(doc.contents) || doc.contents.flow) return undefined;
  const cluster = doc.contents.get("cluster", true);
  if (cluster === undefined) return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}cluster:\n  ${line}\n`;
  const first = isMap(cluster) && !cluster.flow ? (cluster.items[0]?.key as Node | undefined)?.range?.[0] : undefined;
  if (first === undefined) return undefined;
  const start = text.lastIndexOf("\n", first - 1) + 1;
  const indent = text.slice(start, first);
  return /^ +$/.test(indent) ? `${text.slice(0, start)}${indent}${line}\n${text.slice(start)}` : undefined;
}

function sameTree(text: string, expected: unknown): boolean {
  try {
    return isDeepStrictEqual(parse(text), expected);
  } catch {
    return false;
  }
}

/** The draft's tree, whether it is structured or a node.yaml that parses. */
function draftTree(record: DraftRecord): Draft {
  if (record.source === "structured") return record.config as Draft;
  const parsed = parseYamlDocument(record.yaml);
  return (parsed.ok ? nodeYamlToDraft(parsed.parsed.value) : {}) as Draft;
}

const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined);
// The fields the check reads: a name of the wrong shape would be read as none, and any cluster accepted.
const JOIN_FIELDS = /^cluster\.(name|joinAddress|joinToken|join_address|join_token)\b/;

export function createCluster(deps: ClusterDeps): Cluster {
  const run = async (tree: Draft, signal: AbortSignal | undefined, asked: Origin | { attempt: number } | undefined) => {
    const result = await runJoinCheck({
      joinAddress: tree.cluster?.joinAddress ?? "",
      token: tree.cluster?.joinToken ?? "",
      clusterName: text(tree.cluster?.name),
      release: deps.release() ?? undefined,
      now: deps.now,
      signal,
    });
    const codes = result.checks.flatMap((check) => (check.code ? [check.code] : []));
    deps.log[result.ok ? "info" : "warn"]("join check", { ...asked, ok: result.ok, ...(codes.length > 0 ? { codes } : {}) });
    return result;
  };

  return {
    async foundingSecret() {
      const tree = draftTree(deps.draft.record());
      if (deps.draft.analysis().mode !== "hyperconverged-init") return undefined;
      const own = text(tree.cluster?.joinToken);
      if (own && isBareSecret(own)) return undefined;
      const kept = deps.cluster.get();
      if (kept) return kept.secret;
      deps.cluster.set({ secret: generateSecret() });
      try {
        await deps.cluster.save();
      } catch (err) {
        deps.cluster.set(kept);
        throw err;
      }
      return deps.cluster.get()?.secret;
    },

    async preflightCheck(signal, attempt) {
      if (deps.draft.analysis().mode !== "hyperconverged-join") return undefined;
      return run(draftTree(deps.draft.record()), signal, { attempt });
    },

    async check(signal, origin) {
      const analysis = deps.draft.analysis();
      if (analysis.mode !== "hyperconverged-join") {
        throw new InstallerError({
          code: "INVALID_CONFIG",
          detail: "The join check verifies the cluster a hyperconverged-join draft joins; set the draft's mode to hyperconverged-join with its cluster fields first.",
          errors: [{ field: "mode", message: `the draft's mode is ${analysis.mode ?? "not set"}, not hyperconverged-join` }],
        });
      }
      const errors = analysis.errors.filter((e) => JOIN_FIELDS.test(e.field));
      if (errors.length > 0) {
        throw new InstallerError({ code: "INVALID_CONFIG", detail: "The draft's cluster name, join address or join token is missing or malformed; fix the fields listed in `errors`, then check again.", errors });
      }
      return run(draftTree(deps.draft.record()), signal, origin);
    },

    async joinToken(signal) {
      const analysis = deps.draft.analysis();
      if (analysis.mode !== "hyperconverged-init") {
        throw new InstallerError({
          code: "NOT_FOUND",
          detail: `This node's mode is ${analysis.mode ?? "not set"}: only an installed hyperconverged-init node hands out a join token. Ask the cluster's init node.`,
        });
      }
      const attempts = deps.attempts();
      if (phaseOf(attempts) !== "done") {
        throw new InstallerError({
          code: "NOT_INSTALLED",
          detail: "The init node is not installed yet: its join token exists once an install attempt succeeded. Install it, then ask again.",
        });
      }
      const tree = draftTree(deps.draft.record());
      const secret = text(tree.cluster?.joinToken) ?? deps.cluster.get()?.secret;
      const installed = attempts.filter((a) => a.state === "succeeded").at(-1);
      const fingerprint = installed?.cloudCertSha256 ?? (await certificateSha256(deps.readinessUrl, 5_000, signal).catch((err: Error) => {
        throw new InstallerError({
          code: "NOT_INSTALLED",
          detail: `The token pins the cloud API's certificate, and it could not be read from ${deps.readinessUrl} (${err.message}). Check that the cloud API answers over https, then ask again.`,
        });
      }));
      if (!secret) throw new InstallerError({ code: "NOT_INSTALLED", detail: "This node was installed without a cluster secret; install it again to found the cluster." });
      return {
        token: formatJoinToken({ fingerprint, secret }),
        joinAddress: text(tree.network?.vip) ?? "",
        cluster: text(tree.cluster?.name) ?? "",
        release: installed?.payloadVersion ?? deps.release(),
      };
    },

    secrets() {
      const kept = deps.cluster.get()?.secret;
      return kept ? [kept] : [];
    },
  };
}
