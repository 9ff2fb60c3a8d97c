import { makeFolder } from "../../core/fs/private-dir.ts";
import { join } from "node:path";
import { removeInterruptedWritesOf, writeFileAtomic } from "../../core/fs/atomic-write.ts";
import { HttpClientError } from "../../core/http/client.ts";
import { NotWrittenError, writeRemedy } from "../../core/fs/storage-error.ts";
import { readBundle } from "../../core/support/read.ts";
import { printable, printableJsonText } from "../../core/common/printable.ts";
import { ApiProblem, NodeApi } from "./api.ts";
import { refusal } from "./connect.ts";
import type { FleetOutput } from "./output/index.ts";
import type { FleetNode } from "./plan.ts";
import { pool } from "./pool.ts";

/** One node's line of the index: its bundle's file, size and SHA-256, or why there is none. */
export type BundleEntry = { node: string; installer: string } & (
  | { file: string; size: number; sha256: string }
  | { error: "wrong-certificate" | "refused" | "failed" | "unreachable" | "timeout" | "broken" | "malformed" | "too-large" | "not-written" | "not-a-bundle" | "stopped"; detail: string }
);

export const INDEX_FILE = "index.json";

/** What to do when the bundles' folder takes no file: as its cause says (free space, a remount, permissions), or another folder. */
export function notWrittenRemedy(error: NotWrittenError): string {
  return `${writeRemedy(error.cause)}, or give --support-bundle another folder`;
}

type Missing = Extract<BundleEntry, { error: string }>;

/** The fleet's words for why a bundle did not come, as a terminal may show them. */
function whyMissing(error: unknown): Pick<Missing, "error" | "detail"> {
  const said = (kind: Missing["error"], detail: string) => ({ error: kind, detail: printable(detail) });
  if (error instanceof HttpClientError && error.kind === "tls-mismatch") return said("wrong-certificate", error.message);
  const refused = refusal(error);
  if (refused) return said("refused", refused);
  if (error instanceof ApiProblem) return said("failed", `the node answered ${error.status} ${error.code}: ${error.message}`);
  if (error instanceof HttpClientError) return said(error.kind === "timeout" || error.kind === "broken" || error.kind === "malformed" || error.kind === "too-large" ? error.kind : "unreachable", error.message);
  if (error instanceof NotWrittenError) return said("not-written", `${error.message}: ${notWrittenRemedy(error)}`);
  return said("not-written", (error as Error).message);
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/**
 * Each node's bundle into `dir` as NODE.tar.gz, `parallel` at once; a node that gives none is named with why. Once
 * `signal` aborts (Ctrl-C), the downloads under way stop (their temp files removed) and no other begins: those nodes
 * are `stopped`, and what came is kept.
 */
export async function gatherBundles(nodes: readonly FleetNode[], dir: string, parallel: number, out: FleetOutput, signal?: AbortSignal): Promise<BundleEntry[]> {
  await makeFolder(dir, `the bundles' folder ${dir}`);
  // A gather killed (kill -9) mid-download left its temp files (`.NODE.tar.gz.PID.tmp`, up to a bundle's size each):
  // those whose process is gone go; a gather running into the same folder keeps its own.
  const written = [...nodes.map((node) => `${node.name}.tar.gz`), INDEX_FILE];
  await Promise.all(written.map((name) => removeInterruptedWritesOf(join(dir, name), { ofGoneProcesses: true }).catch(() => undefined)));
  const entries = new Map<string, BundleEntry>();
  // By the signal that stopped it (onStop's reason: SIGTERM, SIGHUP), Ctrl-C for SIGINT.
  const by = () => (typeof signal?.reason === "string" && signal.reason !== "SIGINT" ? signal.reason : "Ctrl-C");
  const stopped = (node: FleetNode) => ({ node: node.name, installer: node.access.url.origin, error: "stopped" as const, detail: `not gathered: the run was stopped (${by()})` });
  await pool(nodes, parallel, async (node) => {
    const file = `${node.name}.tar.gz`;
    const installer = node.access.url.origin;
    if (signal?.aborted) return void entries.set(node.name, stopped(node));
    try {
      // What came is read as the summary reads it before it takes the bundle's name: a 200 whose body is no installer's
      // bundle (a proxy's page) is not counted one, kept for a look as NODE.not-a-bundle; a bundle gathered before stays.
      let unreadable: string | undefined;
      const placeOf = async (temp: string) => {
        unreadable = await readBundle(temp, undefined, { signal }).then(() => undefined, (error: Error) => (signal?.aborted ? Promise.reject(error) : error.message));
        return join(dir, unreadable ? `${node.name}.not-a-bundle` : file);
      };
      const { size, sha256, path } = await new NodeApi(node.access).supportBundle(join(dir, file), signal, placeOf);
      if (unreadable) {
        const detail = printable(`${unreadable}; what came is kept as ${path}`);
        entries.set(node.name, { node: node.name, installer, error: "not-a-bundle", detail });
        return out.note(node.name, "error", `no support bundle (not-a-bundle): ${detail}`);
      }
      entries.set(node.name, { node: node.name, installer, file, size, sha256 });
      out.note(node.name, "info", `support bundle: ${join(dir, file)} (${kib(size)}, SHA-256 ${sha256})`);
    } catch (error) {
      if (signal?.aborted) return void entries.set(node.name, stopped(node));
      const missing = whyMissing(error);
      entries.set(node.name, { node: node.name, installer, ...missing });
      out.note(node.name, "error", `no support bundle (${missing.error}): ${missing.detail}`);
    }
  });
  return nodes.map((node) => entries.get(node.name)!);
}

/** DIR/index.json: every node of the plan, in the plan's order, with its bundle or why there is none. */
export async function writeBundleIndex(dir: string, plan: string, entries: readonly BundleEntry[], now: Date): Promise<string> {
  const path = join(dir, INDEX_FILE);
  const gathered = entries.filter((e) => "file" in e).length;
  const text = `${printableJsonText(JSON.stringify({ plan: printable(plan), gatheredAt: now.toISOString(), gathered, missing: entries.length - gathered, nodes: entries }, null, 2))}\n`;
  await writeFileAtomic(path, text).catch((error: NodeJS.ErrnoException) => Promise.reject(typeof error?.code === "string" ? new NotWrittenError(path, error) : error));
  return path;
}
