import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { printable, printableJsonText, visible } from "../common/printable.ts";
import { renderNodeYaml, type Draft } from "../config/index.ts";
import { kindOf } from "../fs/private-dir.ts";
import { notWrittenBecause } from "../fs/storage-error.ts";
import { withSecretScalarsReplaced } from "../secrets/index.ts";
import { stateLayout } from "../state/layout.ts";
import type { AttemptRecord, DraftRecord } from "../state/records.ts";
import { leadingLines, measureEvents, packedBytes, redactedEvents, type EventsFile } from "./events.ts";
import { createBundleRedactor, draftNamedSecrets, marker, secretsInBrokenStore, type BundleRedactor, type NamedSecret } from "./secrets.ts";
import { A_LINK, MAX_ASIDES, readCapped, type StateSnapshot } from "./state.ts";
import { createTarGz, type BundledFile } from "./tar.ts";

/** SPEC §11: "at most 10 MB". */
const DEFAULT_LIMIT_BYTES = 10_000_000;
/** Kept for manifest.json, written last since it lists every other file (compressed). */
const MANIFEST_RESERVE = 64 * 1024;
/** The estimates of what each file takes compressed are a little high; this much more is kept free besides. */
const MARGIN = 0.05;
/** A tar header compressed, and the gzip's own header and trailer: less than this. */
const HEADER_PACKED = 64;
/** Of each of the service's log files (under 1 MB together as the service keeps them): its last megabyte at most. */
const LOG_CAP = 1024 * 1024;

interface SupportBundleInput {
  state: StateSnapshot;
  /** The command or request that made it, for the manifest. */
  madeBy: string;
  version: string;
  now: Date;
  /** The machine's host name: the bundle's name while the status names no hostname. */
  hostname: string;
  /** The status as GET /status answers it (offline: as the state dir gives it). */
  status: unknown;
  host: unknown;
  payload: unknown;
  /** Whether the service runs (serviceFact), when the bundle is made from the state dir. */
  service?: string;
  /** Secrets the state dir does not hold, e.g. an operator's TLS key. */
  secrets?: NamedSecret[];
  /** Files of such secrets that could not be read (`operatorSecrets`' unread). */
  unreadSecrets?: string[];
  limitBytes?: number;
}

/** A file or part of one that is not in the bundle, and why. */
interface LeftOut {
  path: string;
  why: string;
  events?: { leftOut: number; of: number };
}

export interface Manifest {
  bundle: "stratum-support";
  installer: string;
  node: string;
  madeAt: string;
  madeBy: string;
  hostname: string;
  phase: string;
  /** Whether the service ran as the bundle was made: "running (…)", or not and what that means for its phase. */
  service?: string;
  limitBytes: number;
  files: BundledFile[];
  leftOut: LeftOut[];
  /** The secrets left out of every file: how, and the kinds this bundle knew and redacted, by name. */
  /** `unread`: files holding secrets that could not be read, each with why (absent when every one was read). */
  redaction: { statement: string; secrets: string[]; unread?: string[] };
}

const REDACTION_STATEMENT =
  "No file holds a secret: each one (install code, join token and its secret, cluster secret, password hash, TLS private key) " +
  "is replaced, in every spelling found, by a marker naming it, such as [redacted: join token]; any PEM private key, join token " +
  "or crypt hash is also replaced by its shape. A [redacted] without a name was redacted by the service as it wrote the line.";
const UNREAD_STATEMENT =
  " Files named in unread could not be read: a secret only they held is replaced only where its shape shows it (a PEM private key, " +
  "a join token, a crypt hash), not by name; read the bundle before sending it.";

/**
 * The node a bundle is of: the hostname its status gives (the draft's, or the machine's while the draft has none),
 * as a fleet's operator knows it; on rescue images every node has the same host name.
 */
const nodeName = ({ status, hostname }: SupportBundleInput): string => {
  const named = (status as { hostname?: unknown } | undefined)?.hostname;
  return typeof named === "string" && named !== "" ? named : hostname;
};

/** Of a host name in the bundle's name: a DNS label's length, so that its paths stay far under a file name's 255 bytes. */
const NAME_HOST_CHARS = 63;

/** The bundle's file name (and its top folder, without .tar.gz): host name (cut to 63 characters) and UTC time. */
function supportBundleName(hostname: string, now: Date): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
  return `stratum-support-${hostname.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, NAME_HOST_CHARS) || "node"}-${stamp}`;
}

/** Why a file of the state dir is not in the bundle when reading it failed: "… cannot be read (EACCES: permission denied)". */
const cannotRead = (path: string, why: string) => `${path} cannot be read (${why})`;

const json = (value: unknown) => `${printableJsonText(JSON.stringify(value, null, 2))}\n`;

function secretsOf(input: SupportBundleInput): NamedSecret[] {
  const { store, storeRaw, asides, installCode, tlsKey } = input.state;
  return [
    ...(installCode ? [{ name: "install code", value: installCode }] : []),
    ...(tlsKey ? [{ name: "TLS private key", value: tlsKey }] : []),
    ...(store ? draftNamedSecrets(store.draft) : []),
    ...input.state.writtenNodeYamls.flatMap((yaml) => draftNamedSecrets({ source: "yaml", yaml, revision: 0, updatedAt: null })),
    ...(store?.cluster?.secret ? [{ name: "cluster secret", value: store.cluster.secret }] : []),
    ...[...asides, ...(storeRaw ? [storeRaw] : [])].flatMap((file) => secretsInBrokenStore(file.text)),
    ...(input.secrets ?? []),
  ];
}

/** The draft as node.yaml, each secret's scalar replaced by a marker naming it. */
function draftNodeYaml(record: DraftRecord): string {
  const name = { "cluster.join_token": "join token", "admin.password_hash": "password hash" } as const;
  if (record.source === "yaml") return withSecretScalarsReplaced(record.yaml, (field) => marker(name[field]));
  const config = record.config as { cluster?: Record<string, unknown>; admin?: Record<string, unknown> };
  const masked = {
    ...config,
    ...(config.cluster?.joinToken !== undefined ? { cluster: { ...config.cluster, joinToken: marker("join token") } } : {}),
    ...(config.admin?.passwordHash !== undefined ? { admin: { ...config.admin, passwordHash: marker("password hash") } } : {}),
  };
  try {
    return renderNodeYaml(masked as Draft);
  } catch {
    return `# the structured draft did not render to node.yaml; as JSON:\n${json(masked)}`;
  }
}

/** The newest attempt's last readiness observation: what the cloud said when the installer last asked. */
function lastReadiness(attempts: readonly AttemptRecord[]): unknown {
  const attempt = [...attempts].reverse().find((a) => a.readinessHistory.length > 0);
  return attempt ? { attempt: attempt.attempt, observation: attempt.readinessHistory.at(-1) } : undefined;
}

function attemptFiles(record: AttemptRecord): Array<[string, string]> {
  const { firstbootGroup: _group, ...report } = record;
  return [
    [`attempts/${record.attempt}/steps.json`, json(record.steps)],
    ...(record.verdict ? [[`attempts/${record.attempt}/verdict.json`, json(record.verdict)] as [string, string]] : []),
    [`attempts/${record.attempt}/report.json`, json(report)],
  ];
}

/**
 * Writes the support bundle of SPEC §11 as a .tar.gz stream: small files first (held in memory, each under
 * a megabyte), then every attempt's events streamed file by file, then manifest.json. The .tar.gz stays under
 * `limitBytes`: each file's compressed size is estimated first (deflated in pieces, which takes a little more
 * than the one stream does), and over the cap the oldest events of the oldest attempts are cut first.
 */
export interface SupportBundle {
  /** Its file name: host name and UTC time. */
  name: string;
  /** The .tar.gz. */
  stream: Readable;
  /** Settles once the last file is in the tar. */
  manifest: Promise<Manifest>;
}

export function writeSupportBundle(input: SupportBundleInput): SupportBundle {
  const secrets = secretsOf(input);
  const redactor = createBundleRedactor(secrets);
  // Redacted too: a secret pasted into the draft's hostname would be in the file's name and every path in it.
  const name = supportBundleName(redactor.text(nodeName(input)), input.now);
  const tar = createTarGz(name, input.now);
  const manifest = build(input, tar, secrets, redactor).catch((err: Error) => {
    tar.output.destroy(err);
    throw err;
  });
  manifest.catch(() => undefined);
  return { name: `${name}.tar.gz`, stream: tar.output, manifest };
}

async function build(input: SupportBundleInput, tar: ReturnType<typeof createTarGz>, secrets: readonly NamedSecret[], redactor: BundleRedactor): Promise<Manifest> {
  const { state } = input;
  const layout = stateLayout(state.stateDir);
  const limitBytes = input.limitBytes ?? DEFAULT_LIMIT_BYTES;
  const leftOut: LeftOut[] = [];
  const unread = [...state.unreadSecretFiles, ...(input.unreadSecrets ?? [])];
  const attempts = state.store?.attempts ?? [];
  // What takes the cap first: the node's frame, then each attempt's files (the newest first), the service's log, a
  // store kept aside; the older boot's log last. Events come after all of these, cut from the oldest (cutEvents).
  const rank = (path: string): number => {
    const attempt = /^attempts\/(\d+)\//.exec(path);
    if (attempt) return 1 + 1 / (1 + Number(attempt[1]));
    return path === "log/service.log" ? 2 : path.startsWith("state/") ? 3 : path === "log/service.log.1" ? 4 : 0;
  };

  const small: Array<[string, string]> = [["status.json", json(input.status)]];
  if (state.store) small.push(["node.yaml", draftNodeYaml(state.store.draft)]);
  else leftOut.push({ path: "node.yaml", why: state.storeProblem ?? "no store yet: the service has not started on this state dir" });
  small.push(["host.json", json(input.host)], ["payload.json", json(input.payload)]);
  const readiness = lastReadiness(attempts);
  if (readiness) small.push(["readiness.json", json(readiness)]);
  else leftOut.push({ path: "readiness.json", why: "no attempt has asked the cloud for its readiness" });
  const lastStart = await readCapped(layout.lastStart, 1024 * 1024, { noLink: true, orUnreadable: true });
  if (lastStart?.notAFile) leftOut.push({ path: "notices.json", why: `${layout.lastStart} is ${lastStart.notAFile}, not a file` });
  else if (lastStart?.unreadable) leftOut.push({ path: "notices.json", why: cannotRead(layout.lastStart, lastStart.unreadable) });
  else if (lastStart) small.push(["notices.json", lastStart.text]);
  else leftOut.push({ path: "notices.json", why: "no start of the service has been recorded in this state dir" });
  for (const record of attempts) small.push(...attemptFiles(record));
  for (const [path, file] of [["log/service.log.1", layout.serviceLogOlder], ["log/service.log", layout.serviceLog]] as const) {
    const log = await readCapped(file, LOG_CAP, { tail: true, noLink: true, orUnreadable: true });
    if (log?.notAFile) leftOut.push({ path, why: `${file} is ${log.notAFile}, not a file` });
    else if (log?.unreadable) leftOut.push({ path, why: cannotRead(file, log.unreadable) });
    else if (log) small.push([path, log.text.split("\n").map((line) => redactor.text(line)).join("\n")]);
    if (log?.cut) leftOut.push({ path, why: `${file} is ${log.size} bytes (the service keeps its log under 1 MB): only its last megabyte is here` });
  }
  if (state.storeRaw) {
    small.push(["state/installer.json", state.storeRaw.text]);
    if (state.storeRaw.cut) leftOut.push({ path: "state/installer.json", why: `the store file that does not parse is ${state.storeRaw.size} bytes: only its first megabyte is here` });
  }
  for (const aside of state.asides) {
    // Its file name as the bundle's path: whoever may write in the state dir names it (a secret, a newline, a
    // terminal's escape in it), and `tar tv` prints it as it is. Redacted, then every control character written out.
    const path = `state/${printable(redactor.text(aside.name))}`;
    if (aside.notAFile || aside.unreadable) {
      const file = join(state.stateDir, aside.name);
      leftOut.push({ path, why: aside.unreadable ? cannotRead(file, aside.unreadable) : `${file} is ${aside.notAFile}, not a file` });
      continue;
    }
    small.push([path, aside.text]);
    if (aside.cut) leftOut.push({ path, why: `the store kept aside is ${aside.size} bytes: only its first megabyte is here` });
  }
  // One line for them all: a state dir may hold thousands, and the manifest has its room.
  const older = state.olderAsides ?? 0;
  if (older > 0) leftOut.push({ path: "state/installer.json.corrupt-*", why: `${older} older store${older === 1 ? "" : "s"} kept aside: only the newest ${MAX_ASIDES} are here` });

  let budget = limitBytes * (1 - MARGIN) - MANIFEST_RESERVE;
  const included: Array<[string, Buffer]> = [];
  for (const [path, text] of [...small].sort(([a], [b]) => rank(a) - rank(b))) {
    const redacted = path.endsWith(".log") ? text : redactor.text(text);
    // Control characters written out (`\u0000`), once redacted (a secret may hold one), in every file: a damaged store's,
    // a YAML draft's (the API and stage 1 store one as sent), a notice quoting a firstboot's command line. It is read in
    // a terminal or an editor. (The JSON files are printable already; `visible` leaves them as they are.) A node.yaml
    // saved on Windows keeps its CRLF line ends: a CR before a line's end hides nothing.
    const buffer = Buffer.from(redacted.split("\r\n").map(visible).join("\r\n"), "utf8");
    const packed = HEADER_PACKED + packedBytes(buffer);
    if (packed > budget) {
      leftOut.push({ path, why: `it would take the bundle over its ${limitBytes}-byte cap` });
      continue;
    }
    budget -= packed;
    included.push([path, buffer]);
  }
  // In the tar in their order above, whatever order they took the cap in.
  const order = new Map(small.map(([path], i) => [path, i]));
  included.sort(([a], [b]) => order.get(a)! - order.get(b)!);

  const events: EventsFile[] = [];
  // The folder as the files are (A_LINK): a link in its place, to a folder of someone else's attempt logs say, is not
  // followed (O_NOFOLLOW guards a path's last part alone). The service refuses to start on one (ensurePrivateDirInside).
  const folder = await lstat(layout.events).catch(() => undefined);
  const notAFolder = folder && !folder.isDirectory() ? `${layout.events} is ${folder.isSymbolicLink() ? A_LINK : kindOf(folder)}, not a folder` : undefined;
  for (const attempt of notAFolder ? attempts.map((record) => record.attempt) : await attemptsWithEvents(attempts, layout.events)) {
    const path = layout.eventsOf(attempt);
    if (notAFolder) {
      leftOut.push({ path: `attempts/${attempt}/events.ndjson`, why: notAFolder });
      continue;
    }
    const kind = await lstat(path).then((s) => (s.isFile() ? "file" : s.isSymbolicLink() ? "link" : "other"), () => "none");
    let unreadable: string | undefined;
    const file = kind === "file" ? await measureEvents(attempt, path, redactor).catch((err: NodeJS.ErrnoException) => (typeof err?.code === "string" ? void (unreadable = notWrittenBecause(err)) : Promise.reject(err))) : undefined;
    // A file whose every line was damage is left out, not put in empty.
    if (file && (file.lines > 0 || file.overlong.lines === 0)) events.push(file);
    if (file && file.overlong.lines > 0) {
      const { lines, bytes } = file.overlong;
      leftOut.push({ path: `attempts/${attempt}/events.ndjson`, why: `${lines} line${lines === 1 ? "" : "s"} over 1 MiB (${bytes} bytes), which no event the installer writes is: damage, such as the NULs a crash leaves` });
    } else if (!file) {
      const why = unreadable ? cannotRead(path, unreadable) : kind === "link" ? `${path} is ${A_LINK}, not a file` : kind === "other" ? `${path} is not a file` : "the attempt has no event file";
      leftOut.push({ path: `attempts/${attempt}/events.ndjson`, why });
    }
  }
  const skips = await cutEvents(events, budget, redactor, leftOut, limitBytes);

  const files: BundledFile[] = [];
  for (const [path, buffer] of included) files.push(await tar.file(path, buffer));
  for (const file of events) {
    const skip = skips.get(file.attempt);
    if (skip === undefined) continue;
    const path = `attempts/${file.attempt}/events.ndjson`;
    const changed = { shorter: 0, longer: 0 };
    files.push(await tar.stream(path, file.bytes - skip.bytes, redactedEvents(file, skip, redactor, (how, bytes) => (changed[how] += bytes))));
    if (changed.shorter > 0) leftOut.push({ path, why: `it was cut shorter or removed as the bundle read it: its last ${changed.shorter} bytes are blank lines` });
    if (changed.longer > 0) leftOut.push({ path, why: `it was rewritten as the bundle read it: ${changed.longer} bytes past its measured size are left out` });
  }
  const manifest: Manifest = {
    bundle: "stratum-support",
    installer: input.version,
    node: process.version,
    madeAt: input.now.toISOString(),
    madeBy: input.madeBy,
    hostname: nodeName(input),
    phase: (input.status as { phase?: string } | undefined)?.phase ?? "unknown",
    ...(input.service ? { service: input.service } : {}),
    limitBytes,
    files,
    leftOut,
    redaction: {
      statement: unread.length > 0 ? REDACTION_STATEMENT + UNREAD_STATEMENT : REDACTION_STATEMENT,
      secrets: [...new Set(secrets.map((secret) => secret.name))],
      ...(unread.length > 0 ? { unread } : {}),
    },
  };
  await tar.file("manifest.json", redactor.text(json(manifest)));
  tar.finish();
  return manifest;
}

/**
 * Which events go in, as the lines to skip at the front of each attempt's file (absent: the whole file left out).
 * Over the budget, the oldest attempt's oldest events go first, then the next attempt's; each cut is named.
 */
async function cutEvents(
  events: EventsFile[],
  budget: number,
  redactor: BundleRedactor,
  leftOut: LeftOut[],
  limitBytes: number,
): Promise<Map<number, { lines: number; bytes: number }>> {
  const skips = new Map(events.map((file) => [file.attempt, { lines: 0, bytes: 0 }]));
  let over = events.reduce((sum, file) => sum + HEADER_PACKED + file.packed, 0) - budget;
  const why = `the bundle's ${limitBytes}-byte cap: the oldest events of the oldest attempts are left out first`;
  for (const file of events) {
    if (over <= 0) break;
    const path = `attempts/${file.attempt}/events.ndjson`;
    if (over >= file.packed) {
      skips.delete(file.attempt);
      over -= HEADER_PACKED + file.packed;
      leftOut.push({ path, why, events: { leftOut: file.lines, of: file.lines } });
      continue;
    }
    const cut = await leadingLines(file, over, redactor);
    if (cut.lines >= file.lines) {
      // Every line cut: the file is left out, not put in empty.
      skips.delete(file.attempt);
      over -= HEADER_PACKED + file.packed;
      leftOut.push({ path, why, events: { leftOut: file.lines, of: file.lines } });
      continue;
    }
    skips.set(file.attempt, cut);
    over -= cut.packed;
    leftOut.push({ path, why, events: { leftOut: cut.lines, of: file.lines } });
  }
  return skips;
}

/** The attempts whose events to bundle: the store's, and any the events folder holds that it does not name (a store that does not parse names none). */
async function attemptsWithEvents(attempts: readonly AttemptRecord[], folder: string): Promise<number[]> {
  const found = new Set(attempts.map((record) => record.attempt));
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const n = /^attempt-(\d{1,9})\.jsonl$/.exec(name)?.[1];
    if (n !== undefined) found.add(Number(n));
  }
  return [...found].sort((a, b) => a - b);
}
