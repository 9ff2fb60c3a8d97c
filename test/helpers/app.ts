import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { loadHostFactsFile } from "../../core/host/read-facts.ts";
import { ensurePrivateDir } from "../../core/fs/private-dir.ts";
import type { Services } from "../../core/service/services.ts";
import type { Store } from "../../core/state/store.ts";
import { wireServices } from "../../cli/wire.ts";
import { createApp } from "../../handlers/app.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { jsonOf, tempDir, waitFor, type Reply, type RequestOptions } from "./installer.ts";
import { refusingServer } from "./refusing-server.ts";
import { settingsIn } from "./services.ts";
import { DEMO_HOST_FACTS } from "./paths.ts";

export interface AppOptions {
  /** Extra `serve` flags; by default firstboot is /bin/true and readiness polls, for an hour, a port of the test's where nothing answers. */
  args?: string[];
  /** false: no payload (the PAYLOAD_NOT_LOADED blocker); default: a fresh valid one. */
  payload?: false;
  /** Stage 1's node.yaml, left at --handoff before the services start (an unattended install). */
  handoff?: string;
  /** Wraps the real store, for a test that holds back or fails one slice's writes. */
  store?: (store: Store) => Store;
}

export interface AppRequestOptions extends Omit<RequestOptions, "contentType"> {
  /** Default for a body: application/json; null: no Content-Type. */
  contentType?: string | null;
  /** The client's address; default 127.0.0.1. */
  from?: string;
}

export interface InProcessApp {
  app: ReturnType<typeof createApp>;
  services: Services;
  code: string;
  stateDir: string;
  /** The --payload folder (empty with `payload: false`: a test may make one there later). */
  payloadDir: string;
  /** The log lines the services wrote. */
  log: string[];
  /** One request through app.request; like RunningInstaller.request. */
  request(path: string, options?: AppRequestOptions): Promise<Reply>;
  untilNoBlockers(): Promise<void>;
}

/**
 * createApp over services wired as `serve` wires them (cli/wire.ts), on a fresh temp state dir, without a
 * socket: the one place tests build the app's deps. The services stop when the test ends.
 */
export async function inProcessApp(t: TestContext, options: AppOptions = {}): Promise<InProcessApp> {
  const folder = await tempDir("stratum-app-");
  const payload = join(folder, "payload");
  if (options.payload !== false) await makePayload(payload);
  if (options.handoff !== undefined) {
    await mkdir(join(folder, "handoff"), { recursive: true });
    await writeFile(join(folder, "handoff/node.yaml"), options.handoff);
  }
  const unreachable = await refusingServer();
  t.after(() => unreachable.close());
  const settings = settingsIn(folder, [
    "--host-facts", DEMO_HOST_FACTS,
    "--readiness-url", unreachable.url("https", "/v1/readiness"),
    "--readiness-timeout", "3600",
    "--readiness-interval", "0.2",
    ...(options.args ?? []),
  ]);
  const stateDir = await ensurePrivateDir(settings.stateDir);
  const log: string[] = [];
  const { services, installCode: code } = await wireServices(settings, {
    version: "0.0.0-test",
    url: () => "https://127.0.0.1:9443",
    host: await loadHostFactsFile(settings.hostFacts ?? DEMO_HOST_FACTS),
    writeLog: (line) => log.push(line),
    store: options.store,
  });
  await services.start();
  t.after(() => services.stop());
  const app = createApp(services);

  const request = async (path: string, { method = "GET", body, contentType, headers = {}, code: presented = code, from = "127.0.0.1" }: AppRequestOptions = {}): Promise<Reply> => {
    const sent: Record<string, string> = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    if (presented) sent.authorization = `Bearer ${presented}`;
    // Bytes: a string body would get a text/plain Content-Type from fetch's Request.
    let payload: Uint8Array<ArrayBuffer> | undefined;
    if (body !== undefined) {
      payload = new Uint8Array(typeof body === "string" || Buffer.isBuffer(body) ? Buffer.from(body) : Buffer.from(JSON.stringify(body)));
      if (contentType !== null) sent["content-type"] ??= contentType ?? "application/json";
    }
    // What @hono/node-server hands the app: the socket's address and Node's parsed headers.
    const env = { incoming: { socket: { remoteAddress: from }, headers: sent } };
    return replyOf(await app.request(path, { method, headers: sent, body: payload }, env));
  };

  return {
    app,
    services,
    code,
    stateDir,
    payloadDir: payload,
    log,
    request,
    async untilNoBlockers() {
      await waitFor("no blockers", async () => ((await request("/v1/installer/status", { from: "127.0.0.99" })).json.blockers ? undefined : true));
    },
  };
}

/** A fetch Response as the tests' Reply. */
export async function replyOf(response: Response): Promise<Reply> {
  const text = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json: jsonOf(text) };
}
