import assert from "node:assert/strict";
import { mkdir, readFile, rm, unlink } from "node:fs/promises";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, it, type TestContext } from "node:test";
import { type DraftView, NodeApi, type Options } from "../../../cli/fleet/api.ts";
import type { Connected, Connection } from "../../../cli/fleet/connect.ts";
import { installFleet } from "../../../cli/fleet/install.ts";
import { NodeRun, type RunContext } from "../../../cli/fleet/node-run.ts";
import { linesOutput } from "../../../cli/fleet/output/lines.ts";
import { exitCode, writeReport } from "../../../cli/fleet/report.ts";
import { FleetState, journalPathOf } from "../../../cli/fleet/state.ts";
import { getRequestListener } from "@hono/node-server";
import { attemptReport, fakeInstaller } from "../../helpers/fake-node.ts";
import { VALID_DRAFT } from "../../helpers/fixtures.ts";
import { installRig } from "../../helpers/install-rig.ts";
import { tempDir } from "../../helpers/installer.ts";

const STATUS = { phase: "configuring", version: "stratum-installer 1", profile: "single-node", hostname: "n", url: "https://n:9443", configValid: true, attempt: 0 } as const;
const VIEW: DraftView = { source: "structured", config: {}, valid: true, errors: [], updatedAt: null };
const VERDICT = { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "installed", next: "none" };
const FINISHED = { seq: 1, attempt: 1, time: "2026-01-01T00:00:00.000Z", type: "attempt.finished", level: "info", message: "installed", data: { verdict: VERDICT } };

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A join token of the right shape (the fleet refuses to hand the joins one of another). */
const TOKEN = `STRATUM1:${"ab".repeat(32)}:${"s".repeat(43)}`;
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

/**
 * A node that installs at once; its attempt's one event sent once `finishing` resolves. Every request into `log`, as
 * `name METHOD path` (an If-Match as ` if-match E`). The draft's ETag is "e2" once written, or `drafts` when given.
 */
function node(name: string, log: string[], phase: "configuring" | "done", finishing: Promise<void> = Promise.resolve(), drafts: { etag: string } = { etag: '"e2"' }): Handler {
  return (req, res) => {
    const path = req.url!.replace("/v1/installer", "");
    const ifMatch = req.headers["if-match"];
    log.push(`${name} ${req.method} ${path}${ifMatch ? ` if-match ${ifMatch}` : ""}`);
    if (req.method === "GET" && path === "/status") return void json(res, 200, { ...STATUS, phase });
    if (req.method === "GET" && path === "/cluster/join-token") return void json(res, 200, { token: TOKEN, joinAddress: "10.20.0.10:8443", cluster: "lab-1", release: null });
    if (req.method === "PUT" && path === "/config") return void req.resume().on("end", () => json(res, 200, VIEW, { etag: drafts.etag }));
    if (req.method === "POST" && path === "/install") {
      if (ifMatch !== undefined && ifMatch !== drafts.etag) return void json(res, 412, { type: "about:blank", title: "Precondition Failed", status: 412, code: "PRECONDITION_FAILED", detail: "the draft changed" });
      return void json(res, 202, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
    }
    if (path === "/install/verdict") return void json(res, 200, VERDICT);
    if (path === "/install/report?attempt=1") return void json(res, 200, attemptReport(VERDICT));
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

/** What a run needs beside its nodes: a fresh state file (in `folder`, else a temp one), lines output, no recheck, no Ctrl-C. */
async function runContext(t: TestContext, folder?: string): Promise<RunContext> {
  const state = await FleetState.open(join(folder ?? (await tempDir("stratum-install-")), "plan.fleet-state.json"), "plan.yaml", "hash");
  const out = linesOutput(process.stdout, process.stderr);
  t.after(() => out.close());
  return { out, state, rechecks: 0, signal: new AbortController().signal };
}

/**
 * The requests the fleet sends, as "NAME METHOD PATH", in the order it sends them (they may reach their nodes in
 * another: each has its own connection); each node named by its connection's host.
 */
function requestsSent(t: TestContext, named: Array<[Connected, string]>): string[] {
  const names = new Map(named.map(([c, name]) => [c.node.access.url.host, name]));
  const sent: string[] = [];
  const onStart = ({ request }: { request: ClientRequest }) => sent.push(`${names.get(String(request.getHeader("host")))} ${request.method} ${request.path.replace("/v1/installer", "")}`);
  subscribe("http.client.request.start", onStart as (message: unknown) => void);
  t.after(() => unsubscribe("http.client.request.start", onStart as (message: unknown) => void));
  return sent;
}

/** `before` and `after` both in `log`, in that order. */
function inOrder(log: string[], before: string, after: string): void {
  assert.ok(log.includes(before) && log.includes(after) && log.indexOf(before) < log.indexOf(after), `${before} before ${after}:\n${log.join("\n")}`);
}

/**
 * An init installed before, and two joins: the second's attempt ends only once the first's report was asked (a fleet
 * that asks it only at its end never ends).
 */
async function reportGated(t: TestContext, log: string[]): Promise<Connection> {
  let reportOfFirst!: () => void;
  const firstReported = new Promise<void>((resolve) => (reportOfFirst = resolve));
  const init = await connected(t, 0, node("init", log, "done"), "done");
  const firstNode = node("first", log, "configuring");
  const first = await connected(t, 1, (req, res) => {
    if (req.url?.startsWith("/v1/installer/install/report")) reportOfFirst();
    firstNode(req, res);
  }, "configuring");
  const second = await connected(t, 2, node("second", log, "configuring", firstReported), "configuring");
  return { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
}

describe("fleet: the joins' turns", () => {
  it("the next join's status is read and its draft written before its turn (while the one before it installs); its install waits for its turn, with the draft's ETag; each status read once", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    let draftOfSecond!: () => void;
    const secondDrafted = new Promise<void>((resolve) => (draftOfSecond = resolve));
    const init = await connected(t, 0, node("init", log, "done"), "done");
    // The first join's attempt ends only once the second join's draft was written: without preparing ahead, never.
    const first = await connected(t, 1, node("first", log, "configuring", secondDrafted), "configuring");
    const secondNode = node("second", log, "configuring");
    const second = await connected(t, 2, (req, res) => {
      secondNode(req, res);
      if (req.method === "PUT" && req.url === "/v1/installer/config") draftOfSecond();
    }, "configuring");
    const connection: Connection = { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
    const ctx = await runContext(t);

    const run = await installFleet(connection, ctx, 1);

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"]);
    const at = (entry: string) => log.indexOf(entry);
    assert.ok(at("second GET /status") < at("first attempt finished"), log.join("\n"));
    assert.ok(at("second PUT /config if-match \"e1\"") < at("first attempt finished"), log.join("\n"));
    assert.ok(at("second POST /install if-match \"e2\"") > at("first attempt finished"), log.join("\n"));
    assert.deepEqual(log.filter((l) => l.endsWith("GET /status")).sort(), ["first GET /status", "init GET /status", "second GET /status"]);
  });

  it("a join's draft written ahead whose answer was lost (the node saved it; the connection cut before its answer): at its turn the same draft, sent with the ETag first read, is taken by a real installer and the join installs, its firstboot run once", { timeout: 60_000 }, async (t) => {
    const log: string[] = [];
    let draftOfSecond!: () => void;
    const secondDrafted = new Promise<void>((resolve) => (draftOfSecond = resolve));
    const init = await connected(t, 0, node("init", log, "done"), "done");
    // The first join's attempt ends only once the second join's early PUT was handled: its draft is written ahead.
    const first = await connected(t, 1, node("first", log, "configuring", secondDrafted), "configuring");
    const rig = await installRig(t);
    const listener = getRequestListener(rig.app.fetch);
    const puts: number[] = [];
    const real = await fakeInstaller(t, (req, res) => {
      if (req.method === "PUT" && req.url === "/v1/installer/config") {
        const put = puts.push(0);
        if (put === 1) {
          // The node handles the PUT whole; as its answer would leave, the connection is cut.
          res.writeHead = (() => {
            puts[0] = 1;
            req.socket.destroy();
            draftOfSecond();
            return res;
          }) as never;
        }
      }
      void listener(req, res);
    });
    const access = { url: real.url, pin: real.pin, code: rig.code };
    const api = new NodeApi(access);
    const { view, etag } = await api.config();
    const second: Connected = { node: { index: 2, name: "n2", role: "join", access, draft: () => VALID_DRAFT as never }, api, status: await api.status(), options: {} as Options, draft: view, etag };
    const connection: Connection = { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };

    const run = await installFleet(connection, await runContext(t), 1);

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"], JSON.stringify([...run.outcomes.values()]));
    assert.deepEqual(puts, [1, 0], "two PUTs: the first's answer cut, the second answered");
    assert.equal(await rig.firstbootRuns(), 1);
    assert.equal(real.seen.filter((r) => r.startsWith("POST /v1/installer/install ")).length, 1);
  });

  it("stopped (Ctrl-C) while a join waits with its draft written ahead, its start's mark is taken off: only a node the install was sent to keeps one (a later failure on the other is not said to be one this fleet started)", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const stop = new AbortController();
    const init = await connected(t, 0, node("init", log, "done"), "done");
    // The first join's attempt never ends: the run is stopped once the second join's draft was written ahead.
    const first = await connected(t, 1, node("first", log, "configuring", new Promise<void>(() => undefined)), "configuring");
    const secondNode = node("second", log, "configuring");
    const second = await connected(t, 2, (req, res) => {
      secondNode(req, res);
      if (req.method === "PUT" && req.url === "/v1/installer/config") res.on("finish", () => stop.abort("SIGINT"));
    }, "configuring");
    const connection: Connection = { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
    const ctx = { ...(await runContext(t)), signal: stop.signal };

    await assert.rejects(installFleet(connection, ctx, 1));
    await ctx.state.close();

    const read = await FleetState.open(ctx.state.path, "plan.yaml", "hash");
    assert.equal(log.includes("second POST /install if-match \"e2\""), false, log.join("\n"));
    assert.ok(log.includes("second PUT /config if-match \"e1\""), log.join("\n"));
    assert.equal(read.node("n2").starting, undefined, "the join that never sent its install keeps no mark");
    assert.equal(read.node("n1").attempt, 1);
    assert.equal(read.node("n1").starting, undefined);
  });

  it("the state file cannot be written any more (a folder where its journal goes) once a join's install was sent: that join goes on and installs; the next is not sent (its start cannot be recorded), ends not started and the run exits 1; once the file can be written, a run sends it", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const ctx = await runContext(t);
    const journal = journalPathOf(ctx.state.path);
    let broke!: () => void;
    const broken = new Promise<void>((resolve) => (broke = resolve));
    const init = await connected(t, 0, node("init", log, "done"), "done");
    const firstNode = node("first", log, "configuring", broken);
    const first = await connected(t, 1, (req, res) => {
      if (req.method !== "POST" || req.url !== "/v1/installer/install") return firstNode(req, res);
      // As the first join takes its install (its mark on disk): the state's writes under way end, then its journal is a folder.
      void ctx.state
        .flush()
        .then(() => unlink(journal))
        .then(() => mkdir(join(journal, "in-the-way"), { recursive: true }))
        .then(() => (firstNode(req, res), broke()));
    }, "configuring");
    const secondNode = node("second", log, "configuring");
    const second = await connected(t, 2, secondNode, "configuring");
    const connection: Connection = { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };

    const run = await installFleet(connection, ctx, 1);
    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "stopped"], log.join("\n"));
    assert.match(run.outcomes.get("n2")!.detail, /^not started: its install was not sent, as its start could not be recorded first: the state file \S+ cannot be written \(EISDIR: a folder is where a file goes\): \S+ is a folder, not a file: move it out of the way, or give another with --state; run the same command again to go on where this run stopped$/);
    assert.equal(exitCode(run.outcomes), 1);
    assert.ok(log.includes('first POST /install if-match "e2"'), log.join("\n"));
    assert.equal(log.some((l) => l.startsWith("second POST /install")), false, log.join("\n"));
    await assert.rejects(ctx.state.close());

    await rm(journal, { recursive: true });
    const doneFirst = await connected(t, 1, node("first", log, "done"), "done");
    const again = await installFleet({ ...connection, connected: [init, doneFirst, second] }, await runContext(t, dirname(ctx.state.path)), 1);
    assert.deepEqual([...again.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"], log.join("\n"));
    assert.deepEqual(log.filter((l) => l.startsWith("second POST /install")), ['second POST /install if-match "e2"']);
  });

  // --parallel 99999999999999999999 ("all at once") hung the run, a core at 100 %: a turn was counted up to it, one by one.
  it("a --parallel far above the number of joins runs them all at once", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const init = await connected(t, 0, node("init", log, "done"), "done");
    const joins = [await connected(t, 1, node("first", log, "configuring"), "configuring"), await connected(t, 2, node("second", log, "configuring"), "configuring")];
    const connection: Connection = { connected: [init, ...joins], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
    const run = await installFleet(connection, await runContext(t), Number(99999999999999999999n));
    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"]);
  });

  it("each node's report (and its verdict, unless its attempt's last event carried it) is asked as its run ends, while the next one installs; the fleet's report asks no node again", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const connection = await reportGated(t, log);
    const [init, first, second] = connection.connected as [Connected, Connected, Connected];
    const folder = await tempDir("stratum-install-");
    const ctx = await runContext(t, folder);

    const run = await installFleet(connection, ctx, 1);
    const loaded = { file: "plan.yaml", hash: "hash", plan: { cluster: { name: "lab-1" } }, nodes: [init, first, second].map((c) => ({ ...c.node, access: { ...c.node.access } })) } as never;
    await writeReport(join(folder, "fleet-report.json"), loaded, connection, run.outcomes, 0, [TOKEN], run.answers);

    inOrder(log, "first GET /install/report?attempt=1", "second attempt finished");
    // The init was installed before the fleet came: its verdict is asked. The joins' came in their attempt.finished.
    const asked = (name: string) => log.filter((l) => l.startsWith(`${name} GET /install/`) && !l.includes("events"));
    assert.deepEqual(asked("init"), ["init GET /install/verdict", "init GET /install/report?attempt=1"], log.join("\n"));
    for (const name of ["first", "second"]) assert.deepEqual(asked(name), [`${name} GET /install/report?attempt=1`], log.join("\n"));
    const report = JSON.parse(await readFile(join(folder, "fleet-report.json"), "utf8")) as { nodes: { name: string; verdict: unknown }[] };
    assert.deepEqual(report.nodes.map((n) => [n.name, n.verdict]), [["n0", VERDICT], ["n1", VERDICT], ["n2", VERDICT]]);
  });

  it("a join's turn begins with its install: the report of the join whose end freed the turn and the preparing of the next one are asked after it", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const init = await connected(t, 0, node("init", log, "done"), "done");
    const joins = [await connected(t, 1, node("first", log, "configuring"), "configuring"), await connected(t, 2, node("second", log, "configuring"), "configuring"), await connected(t, 3, node("third", log, "configuring"), "configuring")];
    const connection: Connection = { connected: [init, ...joins], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
    const ctx = await runContext(t);
    const sent = requestsSent(t, [[init, "init"], [joins[0]!, "first"], [joins[1]!, "second"], [joins[2]!, "third"]]);

    const run = await installFleet(connection, ctx, 1);
    await Promise.all(run.answers.values());

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed", "installed"]);
    const at = (entry: string) => sent.indexOf(entry);
    assert.ok(at("second POST /install") >= 0, sent.join("\n"));
    assert.ok(at("second POST /install") < at("first GET /install/report?attempt=1"), sent.join("\n"));
    assert.ok(at("second POST /install") < at("third GET /status"), sent.join("\n"));
    assert.ok(at("third POST /install") < at("second GET /install/report?attempt=1"), sent.join("\n"));
  });

  it("once no join is left to start, each join's report is asked as it ends", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    // Both joins install at once.
    const connection = await reportGated(t, log);
    const ctx = await runContext(t);

    const run = await installFleet(connection, ctx, 2);

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"]);
    inOrder(log, "first GET /install/report?attempt=1", "second attempt finished");
  });

  it("a join installed before the fleet came starts nothing: once it has ended no install is left to start, and the reports are asked as runs end", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    let reportOfSecond!: () => void;
    const secondReported = new Promise<void>((resolve) => (reportOfSecond = resolve));
    let postOfFirst!: () => void;
    const firstPosted = new Promise<void>((resolve) => (postOfFirst = resolve));
    const init = await connected(t, 0, node("init", log, "done"), "done");
    // The first join's attempt ends only once the second join's report was asked.
    const firstNode = node("first", log, "configuring", secondReported);
    const first = await connected(t, 1, (req, res) => {
      firstNode(req, res);
      if (req.method === "POST" && req.url === "/v1/installer/install") postOfFirst();
    }, "configuring");
    // The second tells it is installed only after the first's install was asked: it ends after that start.
    const secondNode = node("second", log, "done");
    const second = await connected(t, 2, (req, res) => {
      if (req.url?.startsWith("/v1/installer/install/report")) reportOfSecond();
      if (req.url === "/v1/installer/status") return void firstPosted.then(() => secondNode(req, res));
      secondNode(req, res);
    }, "done");
    const connection: Connection = { connected: [init, first, second], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
    const ctx = await runContext(t);

    const run = await installFleet(connection, ctx, 2);

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed", "installed"]);
    inOrder(log, "second GET /install/report?attempt=1", "first attempt finished");
  });

  it("a status read ahead is not used when it is old or failed: the node's status is asked at its turn; a draft written ahead is not written again", { timeout: 30_000 }, async (t) => {
    const ctx = await runContext(t);
    // Old: read with a freshness of 0 ms, so any read ahead is old at the turn.
    const oldLog: string[] = [];
    const old = new NodeRun(await connected(t, 1, node("join", oldLog, "configuring"), "configuring"), ctx, TOKEN, { freshMs: 0 });
    await old.prepare();
    assert.equal((await old.run()).kind, "installed");
    assert.deepEqual(oldLog.slice(0, 4), ['join GET /status', 'join PUT /config if-match "e1"', "join GET /status", 'join POST /install if-match "e2"']);
    // Failed: the first status read is refused; it is asked again at the turn, and the draft written then.
    const failedLog: string[] = [];
    let refused = false;
    const answer = node("join", failedLog, "configuring");
    const failed = new NodeRun(
      await connected(t, 2, (req, res) => {
        if (req.url === "/v1/installer/status" && !refused) return void ((refused = true), failedLog.push("join GET /status refused"), json(res, 503, { nope: true }));
        answer(req, res);
      }, "configuring"),
      ctx,
      TOKEN,
    );
    await failed.prepare();
    assert.equal((await failed.run()).kind, "installed");
    assert.deepEqual(failedLog.slice(0, 4), ["join GET /status refused", "join GET /status", 'join PUT /config if-match "e1"', 'join POST /install if-match "e2"']);
  });

  it("a status the checks read is the node's status at its turn while it is recent: not asked again; an old one is", { timeout: 30_000 }, async (t) => {
    // Recent: a freshness of a minute, not the default seconds a busy machine could spend between the read and the turn.
    const RECENT = { freshMs: 60_000 };
    const ctx = await runContext(t);
    const recentLog: string[] = [];
    const recent = new NodeRun({ ...(await connected(t, 1, node("join", recentLog, "configuring"), "configuring")), statusAt: performance.now() }, ctx, TOKEN, RECENT);
    await recent.prepare();
    assert.equal((await recent.run()).kind, "installed");
    assert.deepEqual(recentLog.slice(0, 2), ['join PUT /config if-match "e1"', 'join POST /install if-match "e2"']);
    // The init node has no turn prepared: its run goes by the checks' status too.
    const initLog: string[] = [];
    const init = new NodeRun({ ...(await connected(t, 0, node("init", initLog, "configuring"), "configuring")), statusAt: performance.now() }, ctx, undefined, RECENT);
    assert.equal((await init.run()).kind, "installed");
    assert.deepEqual(initLog.slice(0, 2), ['init PUT /config if-match "e1"', 'init POST /install if-match "e2"']);
    // Old (a freshness of 0 ms): asked before the draft is written, and again at the turn.
    const oldLog: string[] = [];
    const old = new NodeRun({ ...(await connected(t, 2, node("join", oldLog, "configuring"), "configuring")), statusAt: performance.now() }, ctx, TOKEN, { freshMs: 0 });
    await old.prepare();
    assert.equal((await old.run()).kind, "installed");
    assert.deepEqual(oldLog.slice(0, 4), ["join GET /status", 'join PUT /config if-match "e1"', "join GET /status", 'join POST /install if-match "e2"']);
  });

  it("a node someone else began installing, or installed, since the status the run went by: its draft's 409 is followed, not a failure", { timeout: 30_000 }, async (t) => {
    const ctx = await runContext(t);
    const taken = (name: string, log: string[], phase: "installing" | "done"): Handler => {
      const rest = node(name, log, "done");
      return (req, res) => {
        const path = req.url!.replace("/v1/installer", "");
        if (req.method === "PUT" && path === "/config") {
          log.push(`${name} PUT /config`);
          const code = phase === "installing" ? "INSTALL_RUNNING" : "ALREADY_INSTALLED";
          return void req.resume().on("end", () => json(res, 409, { type: "about:blank", title: "Conflict", status: 409, code, detail: `${code} (someone else's)` }));
        }
        if (req.method === "GET" && path === "/status") return void (log.push(`${name} GET /status`), json(res, 200, { ...STATUS, phase, attempt: 1 }));
        if (req.method === "GET" && path === "/config") return void (log.push(`${name} GET /config`), json(res, 200, VIEW, { etag: '"theirs"' }));
        rest(req, res);
      };
    };
    // The checks read "configuring" a moment ago; since then an attempt began (by hand, or unattended).
    const runningLog: string[] = [];
    const running = new NodeRun({ ...(await connected(t, 0, taken("init", runningLog, "installing"), "configuring")), statusAt: performance.now() }, ctx, undefined);
    assert.equal((await running.run()).kind, "installed");
    assert.deepEqual(runningLog.slice(0, 3), ["init PUT /config", "init GET /status", "init GET /install/events?attempt=1"]);
    // … or it even ended: the node is installed, with its own draft, read again.
    const doneLog: string[] = [];
    const done = new NodeRun({ ...(await connected(t, 1, taken("join", doneLog, "done"), "configuring")), statusAt: performance.now() }, ctx, TOKEN);
    assert.equal((await done.run()).kind, "installed");
    assert.deepEqual(doneLog, ["join PUT /config", "join GET /status", "join GET /config"]);
  });

  it("an init node installed in this run: its join token is asked before its report, and the joins' installs wait for both", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const init = await connected(t, 0, node("init", log, "configuring"), "configuring");
    const first = await connected(t, 1, node("first", log, "configuring"), "configuring");
    const connection: Connection = { connected: [init, first], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1" };
    const ctx = await runContext(t);
    const sent = requestsSent(t, [[init, "init"], [first, "first"]]);

    const run = await installFleet(connection, ctx, 1);
    await Promise.all(run.answers.values());

    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed"]);
    const at = (entry: string) => sent.indexOf(entry);
    assert.ok(at("init GET /cluster/join-token") >= 0 && at("init GET /install/report?attempt=1") >= 0, sent.join("\n"));
    assert.ok(at("init GET /cluster/join-token") < at("init GET /install/report?attempt=1"), sent.join("\n"));
    assert.ok(at("init GET /install/report?attempt=1") < at("first POST /install"), sent.join("\n"));
  });

  it("a draft changed by someone else between the fleet's write and its install fails the node (412 on If-Match); nothing is installed", { timeout: 30_000 }, async (t) => {
    const ctx = await runContext(t);
    const log: string[] = [];
    const drafts = { etag: '"e2"' };
    const run = new NodeRun(await connected(t, 1, node("join", log, "configuring", Promise.resolve(), drafts), "configuring"), ctx, TOKEN);
    await run.prepare();
    drafts.etag = '"someone-else"';
    const outcome = await run.run();
    assert.equal(outcome.kind, "failed");
    assert.match(outcome.detail, /changed by someone else.*412 on If-Match/);
    assert.ok(!log.some((l) => l.includes("/install/events")), log.join("\n"));
  });
});

describe("fleet: a node's success against its own report", () => {
  /** A run context whose lines output is kept in `text()`. */
  async function capturing(t: TestContext): Promise<{ ctx: RunContext; text: () => string }> {
    const chunks: string[] = [];
    const sink = new PassThrough().on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
    const out = linesOutput(sink as unknown as NodeJS.WriteStream, sink as unknown as NodeJS.WriteStream);
    t.after(() => out.close());
    const state = await FleetState.open(join(await tempDir("stratum-install-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    return { ctx: { out, state, rechecks: 0, signal: new AbortController().signal }, text: () => chunks.join("") };
  }

  /** An init that installs now, its status saying so, where its report of attempt 1 says that attempt failed. */
  async function disagreeingInit(t: TestContext, log: string[]): Promise<Connected> {
    const failed = { ...VERDICT, outcome: "failed", code: "READINESS_TIMEOUT", message: "the cloud was not READY", next: "recheckReadiness" };
    const rest = node("init", log, "configuring");
    return connected(t, 0, (req, res) => (req.url === "/v1/installer/install/report?attempt=1" ? json(res, 200, attemptReport(failed)) : rest(req, res)), "configuring");
  }

  /** An init installed before and one join whose attempt.finished says it succeeded, its report of attempt 1 answered by `report`. */
  async function lyingJoin(t: TestContext, report: (res: ServerResponse) => void): Promise<Connection> {
    const log: string[] = [];
    const init = await connected(t, 0, node("init", log, "done"), "done");
    const rest = node("join", log, "configuring");
    const join = await connected(t, 1, (req, res) => (req.url === "/v1/installer/install/report?attempt=1" ? report(res) : rest(req, res)), "configuring");
    return { connected: [init, join], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never };
  }

  it("a join whose attempt.finished says it succeeded while its report of that attempt says it failed is not counted installed: it failed, and the output says why", { timeout: 30_000 }, async (t) => {
    const failed = { ...VERDICT, outcome: "failed", code: "FIRSTBOOT_FAILED", message: "firstboot exited with 1", step: "firstboot", next: "retryInstall" };
    const connection = await lyingJoin(t, (res) => json(res, 200, attemptReport(failed)));
    const { ctx, text } = await capturing(t);

    const run = await installFleet(connection, ctx, 1);

    const outcome = run.outcomes.get("n1")!;
    assert.equal(outcome.kind, "failed", text());
    assert.match(outcome.detail, /its answers disagree: it said attempt 1 succeeded; its report of attempt 1 says it failed \(FIRSTBOOT_FAILED: firstboot exited with 1\)/);
    assert.equal(exitCode(run.outcomes), 1);
    assert.match(text(), /\[n1\] .*its answers disagree/);
    assert.match(text(), /\[n1\] phase: failed/);
  });

  it("a report that agrees keeps the join installed, with nothing to say; one that cannot be read keeps it installed with a warning that its success is unconfirmed", { timeout: 30_000 }, async (t) => {
    const agreeing = await capturing(t);
    const ran = await installFleet(await lyingJoin(t, (res) => json(res, 200, attemptReport(VERDICT))), agreeing.ctx, 1);
    assert.equal(ran.outcomes.get("n1")!.kind, "installed", agreeing.text());
    assert.doesNotMatch(agreeing.text(), /disagree|unconfirmed/);

    const unread = await capturing(t);
    const run = await installFleet(await lyingJoin(t, (res) => json(res, 503, { code: "BUSY" })), unread.ctx, 1);
    assert.equal(run.outcomes.get("n1")!.kind, "installed", unread.text());
    assert.match(run.outcomes.get("n1")!.detail, /^installed, unconfirmed: its report of attempt 1 cannot be read \(503 BUSY: /, "the summary, --json and the report say so");
    assert.match(unread.text(), /\[n1\] .*its report of attempt 1 cannot be read \(.*\): counted installed as it said attempt 1 succeeded, unconfirmed/);
  });

  it("a join that said it succeeded but has no report of that attempt (404) is not counted installed: a refusal is an answer", { timeout: 30_000 }, async (t) => {
    const { ctx, text } = await capturing(t);
    const run = await installFleet(await lyingJoin(t, (res) => json(res, 404, { code: "NOT_FOUND", detail: "no finished attempt 1" })), ctx, 1);
    assert.equal(run.outcomes.get("n1")!.kind, "failed", text());
    assert.equal(run.outcomes.get("n1")!.detail, "its answers disagree: it said attempt 1 succeeded; asked for attempt 1's report, it answered 404 NOT_FOUND: no finished attempt 1");
  });

  it("a join that said it succeeded but answers for its report what no installer answers (a report of the wrong shape, not JSON, a redirect, a 204) is not counted installed: it answered, and not its installer's answer", { timeout: 30_000 }, async (t) => {
    const answers: Array<[string, (res: ServerResponse) => void, RegExp]> = [
      ["the wrong shape", (res) => json(res, 200, { attempt: 1, verdict: "succeeded" }), /it answered .*not its installer's: HTTP 200: the answer is not of its schema/],
      ["not JSON", (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>login</html>"), /it answered .*not its installer's: HTTP 200: the answer is not JSON/],
      ["a redirect", (res) => res.writeHead(302, { location: "https://elsewhere.example/" }).end(), /it answered 302 HTTP_302: HTTP 302$/],
      ["a 204", (res) => res.writeHead(204).end(), /it answered 204 HTTP_204: HTTP 204$/],
    ];
    for (const [what, report, detail] of answers) {
      const { ctx, text } = await capturing(t);
      const run = await installFleet(await lyingJoin(t, report), ctx, 1);
      assert.equal(run.outcomes.get("n1")!.kind, "failed", `${what}: ${text()}`);
      assert.match(run.outcomes.get("n1")!.detail, /^its answers disagree: it said attempt 1 succeeded; asked for attempt 1's report, /, what);
      assert.match(run.outcomes.get("n1")!.detail, detail, what);
    }
  });

  it("a node whose status says it is installed while its verdict says its attempt failed is not counted installed", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const failed = { ...VERDICT, outcome: "failed", code: "READINESS_TIMEOUT", message: "the cloud was not READY", next: "recheckReadiness" };
    const rest = node("init", log, "done");
    const init = await connected(t, 0, (req, res) => (req.url === "/v1/installer/install/verdict" ? json(res, 200, failed) : rest(req, res)), "done");
    const { ctx, text } = await capturing(t);

    const run = await installFleet({ connected: [init], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1", joinToken: { token: TOKEN, cluster: "lab-1" } as never }, ctx, 1);

    const outcome = run.outcomes.get("n0")!;
    assert.equal(outcome.kind, "failed", text());
    assert.equal(outcome.detail, "its answers disagree: its status said it is installed; its verdict says attempt 1 failed (READINESS_TIMEOUT: the cloud was not READY)");
  });

  it("an init node whose answers disagree stops the joins: none starts, each says why", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const init = await disagreeingInit(t, log);
    const join = await connected(t, 1, node("join", log, "configuring"), "configuring");
    const { ctx } = await capturing(t);

    const run = await installFleet({ connected: [init, join], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1" }, ctx, 1);

    assert.equal(run.outcomes.get("n0")!.kind, "failed");
    assert.deepEqual(run.outcomes.get("n1"), { kind: "stopped", detail: "not started: the init node n0's answers disagree about its install", attempt: 0 });
    assert.ok(!log.some((l) => l.startsWith("join POST /install")), log.join("\n"));
  });

  it("a join installed before the run stays counted installed when the init node fails: only the joins not installed are stopped", { timeout: 30_000 }, async (t) => {
    const log: string[] = [];
    const init = await disagreeingInit(t, log);
    const fresh = await connected(t, 1, node("join", log, "configuring"), "configuring");
    const before = await connected(t, 2, node("join", log, "done"), "done");
    const { ctx } = await capturing(t);

    const run = await installFleet({ connected: [init, fresh, before], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1" }, ctx, 1);

    assert.equal(run.outcomes.get("n1")!.kind, "stopped");
    assert.deepEqual(run.outcomes.get("n2"), { kind: "installed", detail: "installed already, before this run", attempt: 0 });
    assert.ok(!log.some((l) => l.startsWith("join POST /install")), log.join("\n"));
  });
});

describe("fleet: the init node's join token, read once it installed", () => {
  /** An init that installs now, its join token answered by `token`; one join. */
  async function withInit(t: TestContext, token: Handler): Promise<{ connection: Connection; log: string[] }> {
    const log: string[] = [];
    const initNode = node("init", log, "configuring");
    const init = await connected(t, 0, (req, res) => (req.url === "/v1/installer/cluster/join-token" ? token(req, res) : initNode(req, res)), "configuring");
    const join = await connected(t, 1, node("join", log, "configuring"), "configuring");
    return { connection: { connected: [init, join], failures: [], problems: [], draftProblems: [], rows: [], cluster: "lab-1" }, log };
  }

  it("one naming another cluster than the plan's (a lying or reused init) stops the joins, saying so; none is installed with it", { timeout: 30_000 }, async (t) => {
    const { connection, log } = await withInit(t, (_req, res) => json(res, 200, { token: TOKEN, joinAddress: "10.20.0.10:8443", cluster: "someone-elses", release: null }));
    const run = await installFleet(connection, await runContext(t), 1);
    const join = run.outcomes.get("n1")!;
    assert.equal(join.kind, "stopped");
    assert.match(join.detail ?? "", /join token names cluster "someone-elses", not the plan's cluster "lab-1"/);
    assert.equal(log.some((line) => line.startsWith("join PUT") || line.startsWith("join POST")), false, log.join("\n"));
    assert.equal(run.joinTokenUnusable, true, "the init's support bundle could tell why: the run ends naming the command that gathers it");
  });

  it("one the init refuses to give (a problem that asking again does not change) stops the joins, saying why; none is installed", { timeout: 30_000 }, async (t) => {
    const { connection, log } = await withInit(t, (_req, res) => json(res, 409, { type: "about:blank", title: "Conflict", status: 409, code: "NOT_INSTALLED", detail: "no cluster was founded here" }));
    const run = await installFleet(connection, await runContext(t), 1);
    const join = run.outcomes.get("n1")!;
    assert.equal(join.kind, "stopped");
    assert.match(join.detail ?? "", /^not started: the init node's join token cannot be read: .*no cluster was founded here/);
    assert.equal(log.some((line) => line.startsWith("join PUT") || line.startsWith("join POST")), false, log.join("\n"));
    assert.equal(run.joinTokenUnusable, true);
  });

  it("one that is not a join token (a lying or broken init) stops the joins, saying so, never quoting it; none is installed with it", { timeout: 30_000 }, async (t) => {
    const { connection, log } = await withInit(t, (_req, res) => json(res, 200, { token: "STRATUM1:t0ken", joinAddress: "10.20.0.10:8443", cluster: "lab-1", release: null }));
    const run = await installFleet(connection, await runContext(t), 1);
    const join = run.outcomes.get("n1")!;
    assert.equal(join.kind, "stopped");
    assert.equal(join.detail, "not started: the init node n0's join token is not a join token (expected STRATUM1:<fingerprint>:<secret>): it has 1 colon where the shape has 2; no join was given it");
    assert.equal(log.some((line) => line.startsWith("join PUT") || line.startsWith("join POST")), false, log.join("\n"));
    assert.equal(run.joinTokenUnusable, true);
  });

  it("Ctrl-C while it is asked again ends the installs by the stop, as at any other moment of them (the caller then says the stop and how to go on), no join is touched", { timeout: 30_000 }, async (t) => {
    const stop = new AbortController();
    const { connection, log } = await withInit(t, (_req, res) => {
      stop.abort("SIGINT");
      json(res, 503, { type: "about:blank", title: "Service Unavailable", status: 503, code: "INTERNAL", detail: "busy" });
    });
    await assert.rejects(installFleet(connection, { ...(await runContext(t)), signal: stop.signal }, 1), (error: unknown) => error === "SIGINT");
    assert.equal(log.some((line) => line.startsWith("join PUT") || line.startsWith("join POST")), false, log.join("\n"));
  });

  it("one the init cannot give for a moment (503, a dropped connection) is asked again, as a verdict is", { timeout: 30_000 }, async (t) => {
    let asked = 0;
    const { connection } = await withInit(t, (req, res) => {
      asked += 1;
      if (asked === 1) return void json(res, 503, { type: "about:blank", title: "Service Unavailable", status: 503, code: "INTERNAL", detail: "busy" });
      if (asked === 2) return void req.socket.destroy();
      json(res, 200, { token: TOKEN, joinAddress: "10.20.0.10:8443", cluster: "lab-1", release: null });
    });
    const run = await installFleet(connection, await runContext(t), 1);
    assert.deepEqual([...run.outcomes.values()].map((o) => o.kind), ["installed", "installed"]);
    assert.equal(asked, 3);
    assert.equal(run.joinTokenUnusable, undefined);
  });
});
