import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { startReadinessServer, type ReadinessServer, type ReadinessServerOptions } from "../../demo/readiness-server.ts";
import { inProcessApp, type AppOptions, type InProcessApp } from "./app.ts";
import { VALID_DRAFT } from "./fixtures.ts";
import { sseTaker, tempDir, waitFor, writeFirstboot, type Reply, type SseReply } from "./installer.ts";

/** A firstboot that logs each run to a file, prints its node.yaml (secrets and all), and fails while FAIL exists. */
const FIRSTBOOT = `#!/bin/sh
echo run >> "$(dirname "$0")/runs"
echo "firstboot: configuring from $1"
cat "$1"
echo "warning: clock not synced yet" >&2
if [ -e "$(dirname "$0")/FAIL" ]; then echo "error: could not bring up eno1" >&2; exit 4; fi
echo "firstboot: done"
`;

interface Rig extends InProcessApp {
  readiness: ReadinessServer;
  folder: string;
  nodeYaml: string;
  firstbootRuns(): Promise<number>;
}

interface RigOptions extends Omit<ReadinessServerOptions, "port"> {
  /** Seconds the readiness step waits; default 10. */
  timeout?: number;
  /** A readiness server started by the test (it closes it); default a fresh one, closed when the test ends. */
  readiness?: ReadinessServer;
  firstboot?: string;
  app?: AppOptions;
}

/** An in-process app whose attempts run a real firstboot script and poll a real local readiness server (port 0); no blockers left. */
export async function installRig(t: TestContext, options: RigOptions = {}): Promise<Rig> {
  const { timeout = 10, readiness: given, firstboot: script = FIRSTBOOT, app = {}, ...cloud } = options;
  const folder = await tempDir("stratum-rig-");
  const readiness = given ?? (await startReadinessServer({ port: 0, scenario: "ready", stageMs: 200, ...cloud }));
  if (!given) t.after(() => readiness.close());
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const installer = await inProcessApp(t, {
    ...app,
    args: [
      "--firstboot", await writeFirstboot(folder, script),
      "--node-yaml", nodeYaml,
      "--readiness-url", readiness.url,
      "--readiness-timeout", String(timeout),
      "--readiness-interval", "0.1",
      ...(app.args ?? []),
    ],
  });
  if (app.payload !== false) await installer.untilNoBlockers();
  const firstbootRuns = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return Object.assign(installer, { readiness, folder, nodeYaml, firstbootRuns });
}

/** An installer the API steps below speak to: in-process (InProcessApp) or spawned (RunningInstaller). */
type Api = { request(path: string, options?: { method?: string; body?: unknown }): Promise<Reply> };

export async function putDraft(installer: Api, draft: object = VALID_DRAFT): Promise<void> {
  const reply = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.valid, true, JSON.stringify(reply.json.errors));
}

export async function install(installer: Api): Promise<{ attempt: number; phase: string; eventsUrl: string }> {
  const reply = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(reply.status, 202, reply.text);
  return reply.json;
}

/** The verdict of `attempt` once it has one. */
export function finished(installer: Api, attempt: number, timeoutMs = 40_000): Promise<any> {
  return waitFor(
    `attempt ${attempt} to finish`,
    async () => {
      const reply = await installer.request(`/v1/installer/install/verdict?attempt=${attempt}`);
      return reply.status === 200 ? reply.json : undefined;
    },
    timeoutMs,
  );
}

/** An events stream through app.request, read to its end or until `stopAfter` messages. */
export async function readSse(installer: InProcessApp, path: string, options: { lastEventId?: string; stopAfter?: number } = {}): Promise<SseReply> {
  const headers: Record<string, string> = { accept: "text/event-stream", authorization: `Bearer ${installer.code}` };
  if (options.lastEventId) headers["last-event-id"] = options.lastEventId;
  const response = await installer.app.request(path, { headers }, { incoming: { socket: { remoteAddress: "127.0.0.1" }, headers } });
  const reply: SseReply = { status: response.status, contentType: String(response.headers.get("content-type")), messages: [], comments: [] };
  const take = sseTaker(reply, options.stopAfter);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return reply;
    if (take(value)) {
      await reader.cancel();
      return reply;
    }
  }
}
