import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { type DraftView, NodeApi, type Options } from "../../../cli/fleet/api.ts";
import type { Connected, Connection } from "../../../cli/fleet/connect.ts";
import { installFleet } from "../../../cli/fleet/install.ts";
import { runNode, type StatusAhead } from "../../../cli/fleet/node-run.ts";
import { linesOutput } from "../../../cli/fleet/output/lines.ts";
import { FleetState } from "../../../cli/fleet/state.ts";
import { fakeInstaller } from "../../helpers/fake-node.ts";
import { tempDir } from "../../helpers/installer.ts";

const STATUS = { phase: "configuring", version: "stratum-installer 1", profile: "single-node", hostname: "n", url: "https://n:9443", configValid: true, attempt: 0 } as const;
const VIEW: DraftView = { source: "structured", config: {}, valid: true, errors: [], updatedAt: null };
const VERDICT = { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "installed", next: "none" };
const FINISHED = { seq: 1, attempt: 1, time: "2026-01-01T00:00:00.000Z", type: "attempt.finished", level: "info", message: "installed", data: { verdict: VERDICT } };

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

/** A node that installs at once; its attempt's one event sent once `finishing` resolves. Every request into `log`, as `name METHOD path`. */
function node(name: string, log: string[], phase: "configuring" | "done", finishing: Promise<void> = Promise.resolve()): Handler {
  return (req, res) => {
    const path = req.url!.replace("/v1/installer", "");
    log.push(`${name} ${req.method} ${path}`);
    if (req.method === "GET" && path === "/status") return void json(res, 200, { ...STATUS, phase });
    if (req.method === "PUT" && path === "/config") return void req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
    if (req.method === "POST" && path === "/install") return void json(res, 202, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
    if (path.startsWith("/install/events")) {
      return void finishing.then(() => {
        log.push(`${name} attempt finished`);
        res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify(FINISHED)}\n\n`);
      });
    }
    json(res, 404, { code: "NOT_FOUND", detail: path });
  };
}

async function connected(t: TestContext, index: number, handler: Handler, phase: "configuring" | "done"): Promise<Connected> {
  const server = await fakeInstaller(t, handler);
  const access = { url: server.url, pin: server.pin, code: "c0de" };
  const role = index === 0 ? "init" : "join";
  return { node: { index, name: `n${index}`, role, access, draft: () => ({}) as never }, api: new NodeApi(access), status: { ...STATUS, phase }, options: {} as Options, draft: VIEW, etag: '"e1"' };
}

describe("fleet: the joins' turns", () => {
  it("the next join's status is read before its turn (while the one before it installs); its writes wait for its turn; each status read once", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    let statusOfSecond!: () => void;
    const secondAsked = new Promise<void>((resolve) => (statusOfSecond = resolve));
    const init = await connected(t, 0, node("init", log, "done"), "done");
    // The first join's attempt ends only once the second join's status was asked: without reading ahead, never.
    const first = await connected(t, 1, node("first", log, "configuring", secondAsked), "configuring");
    const secondNode = node("second", log, "configuring");
    const second = await connected(t, 2, (req, res) => {
      if (req.url === "/v1/installer/status") statusOfSecond();
      secondNode(req, res);
    }, "configuring");
    const connection: Connection = { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], joinToken: { token: "t0ken", cluster: "lab-1" } as never };
    const state = await FleetState.open(join(await tempDir("stratum-install-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const out = linesOutput(process.stdout, process.stderr);
    t.after(() => out.close());

    const run = await installFleet(connection, { out, state, rechecks: 0, signal: new AbortController().signal }, 1);

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"]);
    const at = (entry: string) => log.indexOf(entry);
    assert.ok(at("second GET /status") < at("first attempt finished"), log.join("\n"));
    assert.ok(at("second PUT /config") > at("first attempt finished"), log.join("\n"));
    assert.deepEqual(log.filter((l) => l.endsWith("GET /status")).sort(), ["first GET /status", "init GET /status", "second GET /status"]);
  });

  it("a status read ahead is not used when it is old or failed: the node's status is asked at its turn", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-install-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const out = linesOutput(process.stdout, process.stderr);
    t.after(() => out.close());
    const ctx = { out, state, rechecks: 0, signal: new AbortController().signal };
    // Had either been used, the node would be "installed already", with no draft written.
    const done = Promise.resolve({ ...STATUS, phase: "done" as const });
    const failed = Promise.reject(new Error("read ahead, refused"));
    failed.catch(() => undefined);
    const aheads: StatusAhead[] = [{ status: done, at: performance.now() - 60_000 }, { status: failed, at: performance.now() }];
    for (const [i, ahead] of aheads.entries()) {
      const log: string[] = [];
      const c = await connected(t, i + 1, node("join", log, "configuring"), "configuring");
      assert.equal((await runNode(c, ctx, "t0ken", ahead)).kind, "installed");
      assert.deepEqual(log.slice(0, 3), ["join GET /status", "join PUT /config", "join POST /install"]);
    }
  });
});
