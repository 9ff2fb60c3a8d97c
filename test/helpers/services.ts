import { mkdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { SERVE_FLAGS, parseFlags, settingsFrom } from "../../cli/flags.ts";
import { wireServices } from "../../cli/wire.ts";
import { loadHostFactsFile } from "../../core/host/read-facts.ts";
import type { Logger } from "../../core/common/log.ts";
import type { Settings } from "../../core/common/settings.ts";
import { openStore, type Store } from "../../core/state/store.ts";
import { stateLayout, tempPathOf } from "../../core/state/layout.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { tempDir, waitFor } from "./installer.ts";
import { DEMO_HOST_FACTS } from "./paths.ts";

/** The one injected clock of a unit test: it moves only when the test moves it. */
interface ManualClock {
  now: () => Date;
  advance(ms: number): void;
}

export function manualClock(start = "2026-12-04T12:00:00.000Z"): ManualClock {
  let ms = Date.parse(start);
  return { now: () => new Date(ms), advance: (by) => void (ms += by) };
}

interface LogEntry {
  level: "info" | "warn" | "error";
  message: string;
  [field: string]: unknown;
}

/** A logger that keeps what the services log, for the test to read. */
export function recordingLog(): { log: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (message: string, fields?: Record<string, unknown>) => void entries.push({ level, message, ...fields });
  return { log: { info: at("info"), warn: at("warn"), error: at("error") }, entries };
}

/** The store on a fresh temp state dir, as `serve` opens it. */
export async function tempStore(now: () => Date = () => new Date()): Promise<{ stateDir: string; store: Store }> {
  const stateDir = join(await tempDir("stratum-unit-"), "state");
  const { store } = await openStore(stateDir, now);
  return { stateDir, store };
}

/** The store document as the next start would read it. */
export async function reopened(stateDir: string): Promise<Store> {
  return (await openStore(stateDir, () => new Date())).store;
}

/**
 * Makes every store write in `stateDir` fail for real (a folder stands where the write's temp file goes,
 * so the write fails with EISDIR whoever runs the test, root included); the returned function undoes it.
 */
export async function refuseWrites(stateDir: string): Promise<() => Promise<void>> {
  const blocker = tempPathOf(stateLayout(stateDir).store);
  await mkdir(blocker);
  return () => rm(blocker, { recursive: true, force: true });
}

interface NodeOptions {
  /** Stage 1's node.yaml, left at --handoff. */
  handoff?: string;
  /** Make the payload before the services start (default), or leave it to the test. */
  payload?: boolean;
  /** The state dir of an earlier start. */
  folder?: string;
}

/** `serve`'s settings for a node whose files all live in `folder`, firstboot /bin/true; `args` on top. */
export function settingsIn(folder: string, args: string[]): Settings {
  const { values } = parseFlags(
    [
      "--state-dir", join(folder, "state"),
      "--payload", join(folder, "payload"),
      "--handoff", join(folder, "handoff/node.yaml"),
      "--install-record", join(folder, "install-record.json"),
      "--node-yaml", join(folder, "etc/node.yaml"),
      "--firstboot", "/bin/true",
      ...args,
    ],
    SERVE_FLAGS,
    {},
  );
  return settingsFrom(values);
}

/** A cloud on loopback that says READY. */
async function readyCloud(t: TestContext): Promise<string> {
  const cloud = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"state":"READY"}'));
  await new Promise<void>((resolve) => cloud.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    cloud.closeAllConnections();
    cloud.close();
  });
  return `http://127.0.0.1:${(cloud.address() as { port: number }).port}/v1/readiness`;
}

/** The services as `serve` wires them (cli/wire.ts), on a temp folder, with `/bin/true` for firstboot and one manual clock. */
export async function wiredNode(t: TestContext, options: NodeOptions = {}) {
  const folder = options.folder ?? (await tempDir("stratum-services-"));
  const payload = join(folder, "payload");
  if (options.payload !== false && options.folder === undefined) await makePayload(payload);
  const handoff = join(folder, "handoff/node.yaml");
  if (options.handoff !== undefined) {
    await mkdir(join(folder, "handoff"), { recursive: true });
    await writeFile(handoff, options.handoff);
  }
  const settings = settingsIn(folder, ["--readiness-url", await readyCloud(t), "--readiness-interval", "0.05"]);
  const clock = manualClock();
  const lines: string[] = [];
  const host = await loadHostFactsFile(DEMO_HOST_FACTS);
  const wired = await wireServices(settings, { version: "0.0.0-test", url: () => "https://10.20.0.11:9443", host, now: clock.now, writeLog: (line) => lines.push(line) });
  t.after(() => wired.services.stop());
  return { ...wired, host, folder, payload, handoff, settings, clock, lines };
}

/**
 * Waits for `probe`, moving the clock a second at each look: the payload watch judges a folder once it
 * has been still for a second by the service's clock.
 */
export function passing<T>(n: { clock: { advance(ms: number): void } }, what: string, probe: () => T | undefined): Promise<T> {
  return waitFor(what, async () => {
    n.clock.advance(1_000);
    return probe();
  });
}

export type WiredNode = Awaited<ReturnType<typeof wiredNode>>;
