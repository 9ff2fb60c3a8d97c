import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { request as httpsRequest, Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { assertConforms } from "./conformance.ts";
import { BUNDLE, DEMO_HOST_FACTS, ROOT } from "./paths.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { stateLayout } from "../../core/state/layout.ts";
import { ensureNode } from "../setup/node-runtimes.ts";
import { markedProcesses } from "./processes.ts";

export { BUNDLE, DEMO_HOST_FACTS, ROOT } from "./paths.ts";

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  peerFingerprint?: string;
}

export interface RequestOptions {
  method?: string;
  body?: string | Buffer | object;
  contentType?: string;
  headers?: Record<string, string>;
  /** The install code to send; `null` sends none; default: the right one. */
  code?: string | null;
}

/** An installer that printed its banner: it listens. */
export interface RunningInstaller extends Omit<SpawnedInstaller, "banner"> {
  url: string;
  port: number;
  code: string;
  fingerprint: string;
  banner: string;
  request(path: string, options?: RequestOptions): Promise<Reply>;
}

export async function tempDir(prefix = "stratum-test-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Writes `script` as `folder`/firstboot, executable; returns its path. */
export async function writeFirstboot(folder: string, script: string): Promise<string> {
  const path = join(folder, "firstboot");
  await writeFile(path, script);
  await chmod(path, 0o755);
  return path;
}

/** The demo host with a second namespace of its NVMe controller, sharing the controller's serial PHAB123456781P6AGN. */
export async function writeSharedSerialHostFacts(folder: string): Promise<string> {
  const facts = JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8"));
  const nvme = facts.disks.find((disk: { name: string }) => disk.name === "nvme0n1");
  facts.disks.push({ ...nvme, name: "nvme0n2", path: "/dev/nvme0n2", byId: ["/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95052"], wwn: "eui.01000000000000005cd2e4c9e2a95052" });
  const path = join(folder, "host-facts.json");
  await writeFile(path, JSON.stringify(facts));
  return path;
}

const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

/** Node's documented pattern: a keep-alive socket the server closed meanwhile is retried once on a new one. */
export async function httpsCall(url: string, options: RequestOptions & { code?: string | null } = {}): Promise<Reply> {
  let reply: Reply;
  try {
    reply = await httpsCallOnce(url, options);
  } catch (err) {
    if (!((err as { reusedSocket?: boolean }).reusedSocket && (err as NodeJS.ErrnoException).code === "ECONNRESET")) throw err;
    reply = await httpsCallOnce(url, options);
  }
  await assertConforms({ method: options.method ?? "GET", url, ...reply });
  return reply;
}

/** A body as JSON; undefined where it is none. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function replyOf(res: import("node:http").IncomingMessage, chunks: Buffer[]): Reply {
  const text = Buffer.concat(chunks).toString("utf8");
  return { status: res.statusCode ?? 0, headers: res.headers, text, json: jsonOf(text) };
}

function httpsCallOnce(url: string, options: RequestOptions & { code?: string | null }): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.code) headers.authorization = `Bearer ${options.code}`;
  let payload: string | Buffer | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === "string" || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= options.contentType ?? "application/json";
  }
  return new Promise((resolvePromise, reject) => {
    const req = httpsRequest(url, { method: options.method ?? "GET", headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      const peerFingerprint = (res.socket as import("node:tls").TLSSocket).getPeerCertificate().fingerprint256;
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolvePromise({ ...replyOf(res, chunks), peerFingerprint }));
      res.on("error", reject);
    });
    req.on("error", (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(payload);
  });
}

export interface StartOptions {
  stateDir?: string;
  args?: string[];
  env?: Record<string, string>;
  /** The payload folder; default: a fresh valid payload made for this installer; false: none (PAYLOAD_NOT_LOADED). */
  payload?: string | false;
  /** Another copy of the bundle, and the folder to run it from. */
  bundle?: string;
  cwd?: string;
  /** The node binary that runs the bundle; default: the one running the tests. */
  node?: string;
  /** Runs the installer as this user (and its group of the same number); needs root. */
  uid?: number;
}

let bundleNodePath: Promise<string> | undefined;

/**
 * The Node that runs the bundle: the tests' own, or with INSTALLER_NODE_VERSION set (`npm run test:node18`) that
 * release's from the registry, so the spawned tests run the bundle on the oldest Node it supports.
 */
export function bundleNode(): Promise<string> {
  const version = process.env.INSTALLER_NODE_VERSION;
  return (bundleNodePath ??= !version
    ? Promise.resolve(process.execPath)
    : ensureNode(version).then((runtime) => {
        if ("skip" in runtime) throw new Error(`INSTALLER_NODE_VERSION=${version}: ${runtime.skip}`);
        return runtime.node;
      }));
}

export async function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT, bundle = BUNDLE, node?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const runtime = node ?? (await bundleNode());
  return new Promise((resolvePromise) => {
    const proc = spawn(runtime, [bundle, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** A `serve` process as spawned: it may still be starting, or have exited without listening. */
export interface SpawnedInstaller {
  proc: ChildProcess;
  stateDir: string;
  /** Its stdout once the banner is complete; undefined if it exits first. */
  banner: Promise<string | undefined>;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

const BANNER_END = /TLS SHA-256:.*\n[\s\S]*State dir:.*\n/;

async function spawnInstaller(options: StartOptions = {}): Promise<SpawnedInstaller> {
  const stateDir = options.stateDir ?? (await tempDir());
  let payload = options.payload;
  if (payload === undefined) {
    payload = join(await tempDir("stratum-payload-"), "payload");
    await makePayload(payload);
  }
  const args = [
    "serve",
    "--listen", "127.0.0.1:0",
    "--state-dir", stateDir,
    "--host-facts", DEMO_HOST_FACTS,
    "--payload", payload === false ? join(stateDir, "no-payload-here") : payload,
    "--handoff", join(stateDir, "no-handoff/node.yaml"),
    ...(options.args ?? []),
  ];
  const proc = spawn(options.node ?? (await bundleNode()), [options.bundle ?? BUNDLE, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  let stdout = "";
  let stderr = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => proc.on("exit", (c) => r(c)));
  const banner = new Promise<string | undefined>((resolvePromise) => {
    proc.stdout!.on("data", (d) => {
      stdout += d;
      if (BANNER_END.test(stdout)) resolvePromise(stdout);
    });
    void exited.then(() => resolvePromise(undefined));
  });
  return {
    proc,
    stateDir,
    banner,
    exited,
    output: () => ({ stdout, stderr }),
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      return exited;
    },
    async kill9() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

const shown = (spawned: SpawnedInstaller) => `\nstdout: ${spawned.output().stdout}\nstderr: ${spawned.output().stderr}`;

/** The banner, or undefined if the installer exited first; fails if it did neither within `seconds`. */
export async function bannerWithin(spawned: SpawnedInstaller, seconds: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`installer neither listened nor exited in ${seconds} s${shown(spawned)}`)), seconds * 1000);
  });
  return Promise.race([spawned.banner, timeout]).finally(() => clearTimeout(timer));
}

/**
 * How long the harness waits for a start before calling it hung. A start costs about 0.4 s of CPU; 24 at once (a fleet
 * rig's 8, three files at a time) on the busy 2-core machine took 11 to 22 s each, none hung: 15 s failed such runs.
 */
export const START_LIMIT_S = 60;

/** Waits for the banner of a spawned installer and reads the URL, port, code and fingerprint from it. */
async function listening(spawned: SpawnedInstaller): Promise<RunningInstaller> {
  const banner = await bannerWithin(spawned, START_LIMIT_S);
  if (banner === undefined) throw new Error(`installer exited with ${await spawned.exited} before it listened${shown(spawned)}`);
  const url = /URL:\s+(\S+)/.exec(banner)![1]!;
  const port = Number(/listening on .*:(\d+)\)/.exec(banner)![1]);
  const code = /Install code:\s+(\S+)/.exec(banner)![1]!;
  const fingerprint = /TLS SHA-256:\s+(\S+)/.exec(banner)![1]!;
  const base = `https://127.0.0.1:${port}`;
  return {
    ...spawned,
    url,
    port,
    code,
    fingerprint,
    banner,
    request: (path, opts = {}) => httpsCall(`${base}${path}`, { ...opts, code: opts.code === undefined ? code : opts.code }),
  };
}

export async function startInstaller(options: StartOptions = {}): Promise<RunningInstaller> {
  return listening(await spawnInstaller(options));
}

export interface Harness {
  /** Starts an installer and waits for its banner; it is killed -9 (its firstboot's processes too) when the file's tests end. */
  start(options?: StartOptions): Promise<RunningInstaller>;
  /** Spawns an installer without waiting for it to listen; killed -9 when the file's tests end. */
  spawn(options?: StartOptions): Promise<SpawnedInstaller>;
  /** Runs `cleanup` when the file's tests end. */
  defer(cleanup: () => unknown): void;
}

/** Call once at the top of an e2e file: its `after()` kills every installer started through it (and its firstboot's processes) and runs every deferred cleanup. */
export function harness(): Harness {
  const cleanups: (() => unknown)[] = [];
  after(() => Promise.all(cleanups.map((cleanup) => cleanup())));
  const defer = (cleanup: () => unknown) => void cleanups.push(cleanup);
  const spawnKilledAfter = async (options?: StartOptions) => {
    const spawned = await spawnInstaller(options);
    defer(async () => {
      await spawned.kill9();
      // An attempt's firstboot outlives an installer killed -9 (as on a node, until the next start stops it): a gated
      // one would loop for good beside the rest of the suite.
      for (const pid of await markedProcesses(spawned.stateDir)) process.kill(pid, "SIGKILL");
    });
    return spawned;
  };
  return { defer, spawn: spawnKilledAfter, start: async (options) => listening(await spawnKilledAfter(options)) };
}

interface SseMessage {
  id?: string;
  data: string;
}

export interface SseReply {
  status: number;
  contentType: string;
  messages: SseMessage[];
  comments: string[];
  /** Set when the stream broke off (a reset, an abort) instead of ending: the error's message. */
  broke?: string;
}

/** Takes an SSE stream's text as it arrives into `reply`'s messages and comment lines; true once it holds `stopAfter` messages. */
export function sseTaker(reply: SseReply, stopAfter?: number): (chunk: string) => boolean {
  let buffer = "";
  return (chunk) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: SseMessage = { data: "" };
      let isMessage = false;
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) reply.comments.push(line);
        else if (line.startsWith("id:")) message.id = line.slice(3).trim();
        else if (line.startsWith("data:")) {
          message.data += (message.data ? "\n" : "") + line.slice(5).trimStart();
          isMessage = true;
        }
      }
      if (isMessage) reply.messages.push(message);
      if (stopAfter !== undefined && reply.messages.length >= stopAfter) return true;
    }
    return false;
  };
}

/** Reads an SSE stream to its end (or until `stopAfter` messages), returning messages and comment lines. */
/**
 * `opened`: called once the answer's head came (the stream is open on the installer). `holdUntil`: nothing more is read
 * until it resolves, as a slow client's reading.
 */
export function readSse(url: string, code: string, options: { lastEventId?: string; stopAfter?: number; timeoutMs?: number; opened?: () => void; holdUntil?: Promise<unknown> } = {}): Promise<SseReply> {
  const headers: Record<string, string> = { accept: "text/event-stream", authorization: `Bearer ${code}` };
  if (options.lastEventId) headers["last-event-id"] = options.lastEventId;
  return new Promise((resolvePromise, reject) => {
    const req = httpsRequest(url, { headers, rejectUnauthorized: false }, (res) => {
      const reply: SseReply = { status: res.statusCode ?? 0, contentType: String(res.headers["content-type"]), messages: [], comments: [] };
      const take = sseTaker(reply, options.stopAfter);
      const finish = () => {
        clearTimeout(timer);
        resolvePromise(reply);
      };
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`SSE did not end within ${options.timeoutMs ?? 30_000} ms; got ${reply.messages.length} messages`));
      }, options.timeoutMs ?? 30_000);
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (take(chunk)) {
          req.destroy();
          finish();
        }
      });
      res.on("end", finish);
      res.on("error", (err) => {
        reply.broke = err.message;
        finish();
      });
      if (options.holdUntil) {
        res.pause();
        void options.holdUntil.then(() => res.resume());
      }
      options.opened?.();
    });
    req.on("error", reject);
    req.end();
  });
}

/** The service's JSON log lines the installer printed on stderr so far. */
export function logLines(installer: Pick<RunningInstaller, "output">): Array<{ message: string; level?: string; [field: string]: any }> {
  return installer
    .output()
    .stderr.split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Until `step`'s step.started is in the attempt's event log on disk, polled every millisecond (a step may last 10 ms).
 * The store names a step before its event is written (so that a crash never leaves an event the store does not know):
 * a kill after the store says the step, and before this, finds the event lost.
 */
export async function untilStepStartedOnDisk(stateDir: string, attempt: number, step: string, timeoutMs = 20_000): Promise<void> {
  const file = stateLayout(stateDir).eventsOf(attempt);
  const marker = `"type":"step.started","step":"${step}"`;
  const deadline = Date.now() + timeoutMs;
  while (!(await readFile(file, "utf8").catch(() => "")).includes(marker)) {
    if (Date.now() > deadline) throw new Error(`attempt ${attempt} never started ${step}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** The fresh payload's checksum run ends quickly, but not before the banner. */
export async function untilNoBlockers(installer: RunningInstaller): Promise<void> {
  await waitFor("no blockers", async () => ((await installer.request("/v1/installer/status")).json.blockers ? undefined : true));
}

/**
 * One request on a connection of its own, optionally from another loopback address (127.0.0.2 …)
 * as a second client would be, and without the conformance check: for inputs the document does
 * not describe (fuzzing, header abuse). An error after the reply arrived (the server closed while
 * a refused body was still being sent) does not hide the reply.
 */
export function httpsRaw(url: string, options: RequestOptions & { localAddress?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.code) headers.authorization = `Bearer ${options.code}`;
  const payload = options.body === undefined || typeof options.body === "string" || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
  if (payload !== undefined && options.contentType !== undefined) headers["content-type"] ??= options.contentType;
  return new Promise((resolvePromise, reject) => {
    let answered = false;
    const req = httpsRequest(url, { method: options.method ?? "GET", headers, agent: false, rejectUnauthorized: false, localAddress: options.localAddress }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolvePromise(replyOf(res, chunks)));
      res.on("error", reject);
    });
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    req.end(payload);
  });
}

/** The store document as it is on disk (status reads memory, which runs one write ahead of the disk); {} before the first write. */
export async function persistedStore(stateDir: string): Promise<any> {
  return JSON.parse((await readFile(stateLayout(stateDir).store, "utf8").catch(() => "")) || "{}");
}
