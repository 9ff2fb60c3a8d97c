import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, unlinkSync } from "node:fs";
import { constants, mkdir, open, readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { Writable } from "node:stream";
import { type DraftView, NodeApi, type Options } from "../../../cli/fleet/api.ts";
import type { Connected } from "../../../cli/fleet/connect.ts";
import { NodeRun, outcomeOf, runNode } from "../../../cli/fleet/node-run.ts";
import { HttpClientError, OutOfFilesError } from "../../../core/http/client.ts";
import type { NodeChange } from "../../../cli/fleet/output/index.ts";
import { linesOutput } from "../../../cli/fleet/output/lines.ts";
import { FleetState, journalPathOf, type NodeRecord } from "../../../cli/fleet/state.ts";
import { fakeInstaller } from "../../helpers/fake-node.ts";
import { tempDir } from "../../helpers/installer.ts";

const STATUS = { phase: "configuring", version: "stratum-installer 1", profile: "single-node", hostname: "n1", url: "https://n1:9443", configValid: true, attempt: 0 } as const;
const VIEW: DraftView = { source: "structured", config: {}, valid: true, errors: [], updatedAt: null };
const VERDICT = { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "installed", next: "none" };
const FINISHED = { seq: 1, attempt: 1, time: "2026-01-01T00:00:00.000Z", type: "attempt.finished", level: "info", message: "installed", data: { verdict: VERDICT } };

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

/** A node that installs at once: its draft taken, its attempt 1 finished with success in its one event (answered once `onInstall` is done). */
function installingNode(onInstall: () => void | Promise<void>) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url!.replace("/v1/installer", "");
    if (req.method === "GET" && path === "/status") return json(res, 200, STATUS);
    if (req.method === "PUT" && path === "/config") return req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
    if (req.method === "POST" && path === "/install") {
      return void Promise.resolve(onInstall()).then(() => json(res, 202, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" }));
    }
    if (path.startsWith("/install/events")) return res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify(FINISHED)}\n\n`);
    if (path.startsWith("/install/verdict")) return json(res, 200, VERDICT);
    json(res, 404, { code: "NOT_FOUND", detail: path });
  };
}

describe("fleet: one node's run", () => {
  it("its install waits for its start's mark alone; its run ends without waiting for the state file's later writes (they are off the path from one node to the next); the fleet's last flush writes what a failed one did not", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const journal = journalPathOf(state.path);
    // Once the node has the install, the state file's next write (an append to its journal) goes through a FIFO: it
    // stays pending until the test reads it, then fails (no fsync on a FIFO).
    t.after(async () => void (await open(journal, constants.O_RDONLY | constants.O_NONBLOCK).then((f) => f.close(), () => undefined)));
    let installed!: (marked: NodeRecord) => void;
    const installing = new Promise<NodeRecord>((resolve) => (installed = resolve));
    const node = await fakeInstaller(
      t,
      installingNode(async () => {
        const marked = JSON.parse(readFileSync(state.path, "utf8")).nodes.n1 as NodeRecord;
        // The writes under way end first (the journal's reset may follow the document's write): the FIFO takes the next.
        await state.flush();
        unlinkSync(journal);
        execFileSync("mkfifo", [journal]);
        installed(marked);
      }),
    );
    const connected: Connected = {
      node: { index: 1, name: "n1", role: "join", access: { url: node.url, pin: node.pin, code: "c0de" }, draft: () => ({ mode: "hyperconverged-join" }) as never },
      api: new NodeApi({ url: node.url, pin: node.pin, code: "c0de" }),
      status: STATUS,
      options: {} as Options,
      draft: VIEW,
      etag: '"e1"',
    };
    const out = linesOutput(process.stdout, process.stderr);
    t.after(() => out.close());
    const run = runNode(connected, { out, state, rechecks: 0, signal: new AbortController().signal }, "token");
    run.catch(() => undefined);
    assert.equal((await installing).starting, true, "the mark was on disk as the node took the install");
    assert.equal((await run).kind, "installed");
    const fifo = await open(journal, "r");
    await fifo.readFile();
    await fifo.close();
    await state.flush();
    assert.deepEqual(JSON.parse(await readFile(state.path, "utf8")).nodes, { n1: { etag: '"e2"', attempt: 1, lastSeq: 1, outcome: "succeeded" } });
    assert.deepEqual(node.seen.map((s) => s.split(" ").slice(0, 2).join(" ")), ["GET /v1/installer/status", "PUT /v1/installer/config", "POST /v1/installer/install", "GET /v1/installer/install/events?attempt=1"]);
  });

  it("a node prepared ahead carries its start's mark with its draft; a run killed before its turn leaves the mark on a node never started, and the next run installs it as any other", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const node = await fakeInstaller(t, installingNode(() => undefined));
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const connected = (): Connected => ({ node: { index: 1, name: "n1", role: "join", access, draft: () => ({ mode: "hyperconverged-join" }) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' });
    const out = linesOutput(process.stdout, process.stderr);
    t.after(() => out.close());
    const ctx = { out, state, rechecks: 0, signal: new AbortController().signal };
    await new NodeRun(connected(), ctx, "token").prepare();
    await state.flush();
    // As the next run reads it: the document and its journal.
    const onDisk = async () => (await FleetState.open(state.path, "plan.yaml", "hash")).node("n1");
    assert.deepEqual(await onDisk(), { etag: '"e2"', starting: true });
    assert.equal((await runNode(connected(), ctx, "token")).kind, "installed");
    await state.flush();
    assert.deepEqual(await onDisk(), { etag: '"e2"', attempt: 1, lastSeq: 1, outcome: "succeeded" });
  });

  it("a POST /install that never left (its node gone from its address, another certificate there): the start's mark is taken off, as nothing was sent; the node is named unreachable", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const node = await fakeInstaller(t, installingNode(() => undefined));
    // Once its draft is written, the node's installer stops (its port then refuses): the install finds no one there.
    node.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "PUT") res.on("finish", () => node.server.close(() => undefined).closeAllConnections());
    });
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' };
    const out = linesOutput(process.stdout, process.stderr);
    t.after(() => out.close());
    const outcome = await runNode(connected, { out, state, rechecks: 0, signal: new AbortController().signal }, "token");
    assert.equal(outcome.kind, "unreachable", outcome.detail);
    assert.ok(!node.seen.some((s) => s.startsWith("POST")), "no install reached it");
    await state.flush();
    assert.deepEqual((await FleetState.open(state.path, "plan.yaml", "hash")).node("n1"), { etag: '"e2"' }, "no mark of a start that never left");
  });

  it("a POST /install answered with malformed HTTP (two Content-Lengths): the node lies, so it failed, naming the parser's code, not unreachable; the start's mark stays, as the install was sent", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const answer = installingNode(() => undefined);
    const node = await fakeInstaller(t, (req, res) => (req.method === "POST" ? req.socket.end("HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}") : answer(req, res)));
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' };
    let printed = "";
    const sink = new Writable({ write: (chunk, _encoding, done) => void ((printed += String(chunk)), done()) });
    const out = linesOutput(sink as unknown as NodeJS.WriteStream, sink as unknown as NodeJS.WriteStream);
    t.after(() => out.close());
    const outcome = await runNode(connected, { out, state, rechecks: 0, signal: new AbortController().signal }, "token");
    const said = `${node.url.host} gave an answer that is not its installer's: malformed HTTP (HPE_UNEXPECTED_CONTENT_LENGTH: Duplicate Content-Length)`;
    assert.deepEqual([outcome.kind, outcome.detail], ["failed", said]);
    assert.match(printed, new RegExp(`^\\[n1\\] error: ${said.replace(/[.()]/g, "\\$&")}$`, "m"));
    assert.equal(node.seen.filter((s) => s.startsWith("POST")).length, 1, "sent once, not again");
    await state.flush();
    assert.deepEqual((await FleetState.open(state.path, "plan.yaml", "hash")).node("n1"), { etag: '"e2"', starting: true }, "the mark of a start that was sent stays");
  });

  it("a node prepared ahead (its start's mark written with its draft) that someone else began installing before its turn: its run follows that attempt, sends no install, and takes its mark off", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    let statuses = 0;
    const installing = installingNode(() => undefined);
    const node = await fakeInstaller(t, (req, res) => {
      // Its first status (read ahead) says configuring; the one read at its turn, an attempt someone else started.
      if (req.method === "GET" && req.url === "/v1/installer/status" && (statuses += 1) > 1) return json(res, 200, { ...STATUS, phase: "installing", attempt: 1 });
      installing(req, res);
    });
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({ mode: "hyperconverged-join" }) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' };
    const out = linesOutput(new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream, process.stderr);
    t.after(() => out.close());
    const run = new NodeRun(connected, { out, state, rechecks: 0, signal: new AbortController().signal }, "token", { freshMs: 0 });
    await run.prepare();
    assert.equal(state.node("n1").starting, true, "marked with its draft");
    assert.equal((await run.run()).kind, "installed");
    await state.flush();
    assert.equal(node.seen.some((s) => s.startsWith("POST /v1/installer/install")), false, node.seen.join("\n"));
    const onDisk = (await FleetState.open(state.path, "plan.yaml", "hash")).node("n1");
    assert.deepEqual(onDisk, { etag: '"e2"', attempt: 1, lastSeq: 1, outcome: "succeeded" });
  });

  /** A node that installs at once, and what the state file on disk (as a run killed -9 then leaves it) said of it as each POST /install came. */
  async function markedNode(t: TestContext, statePath: string) {
    /** Its record, or why the state file could not be read. */
    const atPosts: Array<NodeRecord | string> = [];
    const onDisk = () => FleetState.open(statePath, "plan.yaml", "hash").then((read) => read.node("n1"), (error: Error) => error.message);
    const node = await fakeInstaller(t, installingNode(async () => void atPosts.push(await onDisk())));
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const connected = (): Connected => ({ node: { index: 1, name: "n1", role: "join", access, draft: () => ({ mode: "hyperconverged-join" }) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' });
    let printed = "";
    const sink = new Writable({ write: (chunk, _encoding, done) => void ((printed += String(chunk)), done()) }) as unknown as NodeJS.WriteStream;
    const out = linesOutput(sink, sink);
    t.after(() => out.close());
    return { atPosts, connected, out, printed: () => printed, posts: () => node.seen.filter((s) => s.startsWith("POST /v1/installer/install ")).length };
  }

  // A mark the disk refused was swallowed: the install went out all the same, and a run killed -9 then left no mark,
  // so the next one could retry that attempt (firstboot again, on disks it erased) unseen.
  it("a start's mark the state file refuses (a folder where it goes): the install is not sent; the node ends not started, saying why with the state file's reason and remedy; once the file can be written, a run sends it with its mark on disk", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const { atPosts, connected, out, printed, posts } = await markedNode(t, state.path);
    const ctx = { out, state, rechecks: 0, signal: new AbortController().signal };
    await mkdir(join(state.path, "in-the-way"), { recursive: true });

    const refused = await runNode(connected(), ctx, "token");
    assert.equal(refused.kind, "stopped", printed());
    const why = `the state file ${state.path} cannot be written (EISDIR: a folder is where a file goes): ${state.path} is a folder, not a file: move it out of the way, or give another with --state; run the same command again to go on where this run stopped`;
    assert.equal(refused.detail, `not started: its install was not sent, as its start could not be recorded first: ${why}`);
    assert.ok(printed().includes(`[n1] error: ${refused.detail}\n`), printed());
    assert.equal(posts(), 0, "no POST /install reached the node");

    await rm(state.path, { recursive: true });
    await state.flush();
    assert.deepEqual((await FleetState.open(state.path, "plan.yaml", "hash")).node("n1"), { etag: '"e2"' }, "no mark is left for the install never sent");
    const sent = await runNode(connected(), ctx, "token");
    assert.equal(sent.kind, "installed", printed());
    assert.equal(posts(), 1);
    assert.deepEqual(atPosts, [{ etag: '"e2"', starting: true }], "its mark was on disk as the node took the install");
    await state.close();
    assert.equal((await FleetState.open(state.path, "plan.yaml", "hash")).node("n1").starting, undefined, "the mark is taken off once the attempt is recorded");
  });

  it("a start's mark whose write ahead of the turn (with its draft) failed is written again at the turn, and the install waits for it", { timeout: 30_000 }, async (t) => {
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    const { atPosts, connected, out, printed, posts } = await markedNode(t, state.path);
    const run = new NodeRun(connected(), { out, state, rechecks: 0, signal: new AbortController().signal }, "token");
    await mkdir(join(state.path, "in-the-way"), { recursive: true });
    await run.prepare();
    await state.flush().catch(() => undefined);
    await rm(state.path, { recursive: true });

    assert.equal((await run.run()).kind, "installed", printed());
    assert.equal(posts(), 1);
    assert.deepEqual(atPosts, [{ etag: '"e2"', starting: true }], "its mark was on disk as the node took the install");
  });

  it("the verdict a run ends with is the one its last attempt ended with; a run that breaks in a later attempt ends with none (the report asks the node)", { timeout: 30_000 }, async (t) => {
    const FAILED = { ...VERDICT, outcome: "failed", step: "readiness", code: "READINESS_TIMEOUT", message: "not ready", next: "recheckReadiness" };
    const ended = async (rechecks: number) => {
      const node = await fakeInstaller(t, (req, res) => {
        const path = req.url!.replace("/v1/installer", "");
        if (req.method === "GET" && path === "/status") return json(res, 200, STATUS);
        if (req.method === "PUT" && path === "/config") return req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
        if (req.method === "POST" && path === "/install") return json(res, 202, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
        if (req.method === "POST" && path === "/install/recheck-readiness") return json(res, 202, { attempt: 2, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=2" });
        // Attempt 1's stream ends without a verdict (it failed: the verdict is asked); attempt 2's sends what no installer sends.
        if (path === "/install/events?attempt=1") return res.writeHead(200, { "content-type": "text/event-stream" }).end();
        if (path === "/install/events?attempt=2") return res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: {"seq":"one"}\n\n`);
        if (path.startsWith("/install/verdict")) return json(res, 200, FAILED);
        json(res, 404, { code: "NOT_FOUND", detail: path });
      });
      const access = { url: node.url, pin: node.pin, code: "c0de" };
      const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' };
      const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
      const out = linesOutput(process.stdout, process.stderr);
      t.after(() => out.close());
      const run = new NodeRun(connected, { out, state, rechecks, signal: new AbortController().signal }, "token");
      return { outcome: await run.run(), verdict: run.verdict };
    };
    const failed = await ended(0);
    assert.equal(failed.outcome.kind, "failed");
    assert.deepEqual(failed.verdict, FAILED);
    const broken = await ended(1);
    assert.equal(broken.outcome.kind, "failed");
    assert.match(broken.outcome.detail, /seq/);
    assert.equal(broken.verdict, undefined);
  });
});

describe("fleet: readiness rechecks (SPEC §10.3: --rechecks N)", () => {
  it("a cloud never READY: at most N rechecks, never a second install; the node then fails with its last attempt, which the state file records", { timeout: 30_000 }, async (t) => {
    const ended = async (rechecks: number) => {
      const asked = { installs: 0, rechecks: 0 };
      let attempt = 0;
      const failed = () => ({ ...VERDICT, attempt, kind: attempt === 1 ? "install" : "recheck-readiness", outcome: "failed", step: "readiness", code: "READINESS_TIMEOUT", message: "not ready", next: "recheckReadiness" });
      const node = await fakeInstaller(t, (req, res) => {
        const path = req.url!.replace("/v1/installer", "");
        if (req.method === "GET" && path === "/status") return json(res, 200, STATUS);
        if (req.method === "PUT" && path === "/config") return req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
        const started = () => json(res, 202, { attempt: ++attempt, phase: "installing", eventsUrl: `/v1/installer/install/events?attempt=${attempt}` });
        if (req.method === "POST" && path === "/install") return void (asked.installs++, started());
        if (req.method === "POST" && path === "/install/recheck-readiness") return void (asked.rechecks++, started());
        // Each attempt's stream ends without its attempt.finished: its verdict is asked.
        if (path.startsWith("/install/events")) return res.writeHead(200, { "content-type": "text/event-stream" }).end();
        if (path.startsWith("/install/verdict")) return json(res, 200, failed());
        json(res, 404, { code: "NOT_FOUND", detail: path });
      });
      const access = { url: node.url, pin: node.pin, code: "c0de" };
      const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' };
      const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
      const out = linesOutput(new Writable({ write: (_c, _e, done) => done() }), new Writable({ write: (_c, _e, done) => done() }));
      t.after(() => out.close());
      const outcome = await runNode(connected, { out, state, rechecks, signal: new AbortController().signal }, "token");
      await state.close();
      return { outcome, asked, recorded: JSON.parse(await readFile(state.path, "utf8")).nodes.n1 as NodeRecord };
    };
    for (const n of [0, 1, 3]) {
      const { outcome, asked, recorded } = await ended(n);
      assert.deepEqual(asked, { installs: 1, rechecks: n }, `--rechecks ${n}`);
      assert.equal(outcome.kind, "failed");
      assert.equal(outcome.attempt, 1 + n);
      assert.equal(recorded.attempt, 1 + n, "the state file has the last attempt: a later run follows it, not a new install");
      assert.match(outcome.detail, /^READINESS_TIMEOUT: not ready.* \(next: recheckReadiness\)$/, "the summary's detail says what to do next, as the note did");
    }
  });
});

describe("fleet: a node found failed at its readiness wait (a run again, after --rechecks ran out)", () => {
  it("is rechecked, never installed again: firstboot does not run twice; the recheck's attempt is what the state file then holds", { timeout: 30_000 }, async (t) => {
    let latest = 1;
    const TIMED_OUT = { ...VERDICT, outcome: "failed", step: "readiness", code: "READINESS_TIMEOUT", message: "not ready", next: "recheckReadiness" };
    const SUCCEEDED = { ...VERDICT, attempt: 2, kind: "recheck-readiness" };
    const node = await fakeInstaller(t, (req, res) => {
      const path = req.url!.replace("/v1/installer", "");
      if (req.method === "GET" && path === "/status") return json(res, 200, { ...STATUS, phase: latest === 1 ? "failed" : "done", attempt: latest });
      if (req.method === "PUT" && path === "/config") return req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
      if (req.method === "POST" && path === "/install") return json(res, 409, { type: "about:blank", title: "Conflict", status: 409, code: "INSTALL_RUNNING", detail: "not expected" });
      if (req.method === "POST" && path === "/install/recheck-readiness") return void ((latest = 2), json(res, 202, { attempt: 2, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=2" }));
      if (path === "/install/events?attempt=2") return res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify({ ...FINISHED, attempt: 2, data: { verdict: SUCCEEDED } })}\n\n`);
      if (path.startsWith("/install/verdict")) return json(res, 200, latest === 1 ? TIMED_OUT : SUCCEEDED);
      json(res, 404, { code: "NOT_FOUND", detail: path });
    });
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const api = new NodeApi(access);
    const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api, status: await api.status(), options: {} as Options, draft: VIEW, etag: '"e1"' };
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    // What the run before left: attempt 1, failed, shown.
    await state.set("n1", { attempt: 1, outcome: "failed" });
    const out = linesOutput(new Writable({ write: (_c, _e, done) => done() }), new Writable({ write: (_c, _e, done) => done() }));
    t.after(() => out.close());
    const outcome = await runNode(connected, { out, state, rechecks: 1, signal: new AbortController().signal }, "token");
    await state.close();
    assert.equal(outcome.kind, "installed", outcome.detail);
    assert.deepEqual(node.seen.filter((s) => s.startsWith("POST")).map((s) => s.split(" ").slice(0, 2).join(" ")), ["POST /v1/installer/install/recheck-readiness"]);
    assert.equal((JSON.parse(await readFile(state.path, "utf8")).nodes.n1 as NodeRecord).attempt, 2);
  });
});

describe("fleet: a verdict of a node that lies", () => {
  it("a failed verdict with thousands of failed join checks (an installer gives one per check, seven): at most 50 are said, then how many more", { timeout: 30_000 }, async (t) => {
    const checks = Array.from({ length: 10_000 }, (_, n) => ({ name: "reachable", ok: false, code: "JOIN_UNREACHABLE", detail: `check ${n} ${"d".repeat(500)}` }));
    const FAILED = { ...VERDICT, outcome: "failed", step: "preflight", code: "PREFLIGHT_FAILED", message: "the join check failed", next: "fixConfig", checks };
    const node = await fakeInstaller(t, (req, res) => {
      const path = req.url!.replace("/v1/installer", "");
      if (req.method === "GET" && path === "/status") return json(res, 200, STATUS);
      if (req.method === "PUT" && path === "/config") return req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
      if (req.method === "POST" && path === "/install") return json(res, 202, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
      if (path.startsWith("/install/events")) return res.writeHead(200, { "content-type": "text/event-stream" }).end();
      if (path.startsWith("/install/verdict")) return json(res, 200, FAILED);
      json(res, 404, { code: "NOT_FOUND", detail: path });
    });
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api: new NodeApi(access), status: STATUS, options: {} as Options, draft: VIEW, etag: '"e1"' };
    const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
    let printed = "";
    const sink = new Writable({ write: (chunk, _encoding, done) => void ((printed += String(chunk)), done()) });
    const out = linesOutput(sink as unknown as NodeJS.WriteStream, sink as unknown as NodeJS.WriteStream);
    const outcome = await runNode(connected, { out, state, rechecks: 0, signal: new AbortController().signal }, "token");
    out.close();
    assert.equal(outcome.kind, "failed");
    const said = printed.split("\n").filter((line) => line.startsWith("[n1] error: join check"));
    assert.equal(said.length, 50, `${said.length} lines of join checks`);
    assert.match(printed, /^\[n1\] error: and 9950 more failed join checks \(GET \/v1\/installer\/install\/verdict on the node lists them all\)$/m);
  });
});

describe("fleet: an attempt the fleet follows, started before it came", () => {
  for (const [what, aheadMs] of [["an hour ahead of this machine's (a fresh node's hardware clock)", 3_600_000], ["an hour behind", -3_600_000], ["the same", 0]] as const) {
    it(`its elapsed time counts from when it started by this machine's clock, the node's clock ${what} (read from its answers' Date)`, { timeout: 30_000 }, async (t) => {
      // On the node's clock, attempt 1 started 30 s ago.
      const nodeNow = () => new Date(Date.now() + aheadMs);
      const node = await fakeInstaller(t, (req, res) => {
        const path = req.url!.replace("/v1/installer", "");
        res.setHeader("date", nodeNow().toUTCString());
        if (req.method === "GET" && path === "/status") return json(res, 200, { ...STATUS, phase: "installing", attempt: 1, startedAt: new Date(nodeNow().getTime() - 30_000).toISOString() });
        if (path.startsWith("/install/events")) return res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify(FINISHED)}\n\n`);
        if (path.startsWith("/install/verdict")) return json(res, 200, VERDICT);
        json(res, 404, { code: "NOT_FOUND", detail: path });
      });
      const access = { url: node.url, pin: node.pin, code: "c0de" };
      const api = new NodeApi(access);
      const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api, status: await api.status(), statusAt: performance.now(), options: {} as Options, draft: VIEW, etag: '"e1"' };
      const state = await FleetState.open(join(await tempDir("stratum-node-run-"), "plan.fleet-state.json"), "plan.yaml", "hash");
      const out = linesOutput(new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream, process.stderr);
      const sinces: number[] = [];
      const watched = { ...out, change: (name: string, change: NodeChange) => void (change.since === undefined || sinces.push(change.since)) };
      assert.equal((await runNode(connected, { out: watched, state, rechecks: 0, signal: new AbortController().signal })).kind, "installed");
      assert.equal(sinces.length, 1);
      const elapsed = Date.now() - sinces[0]!;
      assert.ok(elapsed > 25_000 && elapsed < 40_000, `elapsed ${elapsed} ms, the node's 30 s`);
    });
  }
});

describe("fleet: a failed attempt no run of this fleet has shown", () => {
  const FAILED = { ...VERDICT, outcome: "failed", step: "firstboot", code: "FIRSTBOOT_FAILED", message: "firstboot exited with code 1", next: "retryInstall" };
  const SUCCEEDED = { ...VERDICT, attempt: 2 };

  /** A node whose attempt 1 failed at firstboot; a POST /install starts attempt 2, which succeeds. */
  async function failedNode(t: TestContext, failed: typeof FAILED = FAILED) {
    let latest = 1;
    /** The fleet's own record of the node as the POST /install came. */
    let atPost: NodeRecord | undefined;
    let onDiskAtPost: NodeRecord | undefined;
    let current: FleetState | undefined;
    const node = await fakeInstaller(t, (req, res) => {
      const path = req.url!.replace("/v1/installer", "");
      if (req.method === "GET" && path === "/status") return json(res, 200, { ...STATUS, phase: latest === 1 ? "failed" : "done", attempt: latest });
      if (req.method === "PUT" && path === "/config") return req.resume().on("end", () => json(res, 200, VIEW, { etag: '"e2"' }));
      if (req.method === "POST" && path === "/install") {
        latest = 2;
        atPost = { ...current!.node("n1") };
        // What a run killed -9 at this moment leaves: the state file as the next run reads it (its journal folded in).
        return void FleetState.open(current!.path, "plan.yaml", "hash").then((read) => {
          onDiskAtPost = read.node("n1");
          json(res, 202, { attempt: 2, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=2" });
        });
      }
      if (path === "/install/events?attempt=2") return res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify({ ...FINISHED, attempt: 2, data: { verdict: SUCCEEDED } })}\n\n`);
      if (path.startsWith("/install/verdict")) return json(res, 200, latest === 1 ? failed : SUCCEEDED);
      json(res, 404, { code: "NOT_FOUND", detail: path });
    });
    const access = { url: node.url, pin: node.pin, code: "c0de" };
    const statePath = join(await tempDir("stratum-node-run-"), "plan.fleet-state.json");
    const runOnce = async (before?: NodeRecord) => {
      const api = new NodeApi(access);
      const connected: Connected = { node: { index: 1, name: "n1", role: "join", access, draft: () => ({}) as never }, api, status: await api.status(), options: {} as Options, draft: VIEW, etag: '"e1"' };
      const state = await FleetState.open(statePath, "plan.yaml", "hash");
      current = state;
      if (before) await state.set("n1", before);
      let printed = "";
      const sink = new Writable({ write: (chunk, _encoding, done) => void ((printed += String(chunk)), done()) });
      const out = linesOutput(sink as unknown as NodeJS.WriteStream, sink as unknown as NodeJS.WriteStream);
      const outcome = await runNode(connected, { out, state, rechecks: 1, signal: new AbortController().signal }, "token");
      out.close();
      await state.close();
      return { outcome, printed, nodes: JSON.parse(await readFile(statePath, "utf8")).nodes };
    };
    return { node, access, runOnce, atPost: () => atPost, onDiskAtPost: () => onDiskAtPost, posts: () => node.seen.filter((s) => s.startsWith("POST")).map((s) => s.split(" ").slice(0, 2).join(" ")) };
  }

  it("a verdict whose message is longer than the fleet shows (a node's text): the detail is cut inside the message, and still ends with what to do next", { timeout: 30_000 }, async (t) => {
    const long = { ...FAILED, message: `firstboot exited with code 1: ${"x".repeat(40 * 1024)}` };
    const { runOnce } = await failedNode(t, long);
    const run = await runOnce({ starting: true });
    assert.equal(run.outcome.kind, "failed");
    assert.ok(Buffer.byteLength(run.outcome.detail) < 16 * 1024, `${Buffer.byteLength(run.outcome.detail)} bytes`);
    assert.match(run.outcome.detail, /^FIRSTBOOT_FAILED: firstboot exited with code 1: x+.* \(next: retryInstall\)$/);
  });

  it("one the fleet started (a run killed as it sent POST /install left its mark) is shown and not retried; the next run, once someone has seen it, retries", { timeout: 30_000 }, async (t) => {
    const { runOnce, posts } = await failedNode(t);
    const first = await runOnce({ starting: true });
    assert.equal(first.outcome.kind, "failed");
    assert.equal(first.outcome.attempt, 1);
    assert.match(first.outcome.detail, /^FIRSTBOOT_FAILED: firstboot exited with code 1 \(next: retryInstall\)$/);
    assert.match(first.printed, /\[n1\] error: attempt 1, which a run of this fleet started as it stopped, failed with no run following it: FIRSTBOOT_FAILED: firstboot exited with code 1 \(next: retryInstall\); not retried now: look at the node, then run the fleet again to retry it/);
    assert.deepEqual(posts(), [], "nothing started");
    assert.deepEqual(first.nodes.n1, { attempt: 1, outcome: "failed" });

    const second = await runOnce();
    assert.equal(second.outcome.kind, "installed", second.printed);
    assert.deepEqual(posts(), ["POST /v1/installer/install"]);
    assert.deepEqual(second.nodes.n1, { etag: '"e2"', attempt: 2, lastSeq: 1, outcome: "succeeded" }, "the mark is gone once the attempt is recorded");
  });

  it("one someone else started (no mark: by hand, or a state file moved away) is retried at once, as before", { timeout: 30_000 }, async (t) => {
    const { runOnce, posts, atPost } = await failedNode(t);
    const run = await runOnce();
    assert.equal(run.outcome.kind, "installed", run.printed);
    assert.deepEqual(posts(), ["POST /v1/installer/install"]);
    assert.equal(atPost()?.starting, true, "the fleet marked the node as it sent POST /install");
  });

  it("the mark is on disk before POST /install goes out: a run killed -9 as the node takes the install leaves it, so the next run shows that attempt's failure instead of retrying it unseen", { timeout: 30_000 }, async (t) => {
    const { runOnce, onDiskAtPost } = await failedNode(t);
    const run = await runOnce();
    assert.equal(run.outcome.kind, "installed", run.printed);
    assert.equal(onDiskAtPost()?.starting, true, `on disk as the node took POST /install: ${JSON.stringify(onDiskAtPost())}`);
  });

  it("a node whose status says its attempt failed while its verdict says it succeeded (and asks for a readiness recheck) is not counted installed on that word: it failed, saying so; nothing is started", { timeout: 30_000 }, async (t) => {
    const LIAR = { ...SUCCEEDED, attempt: 1, next: "recheckReadiness" } as unknown as typeof FAILED;
    const { runOnce, posts } = await failedNode(t, LIAR);
    const run = await runOnce();
    assert.equal(run.outcome.kind, "failed", run.printed);
    assert.match(run.outcome.detail, /not its installer's: its status says attempt 1 failed, its verdict that attempt 1 succeeded/);
    assert.deepEqual(posts(), [], "nothing started");
  });

  it("a readiness recheck asked by the verdict of another attempt than the one the node's status says failed is not run on it: the node's own failure is gone by, as any other", { timeout: 30_000 }, async (t) => {
    const OTHER = { ...FAILED, attempt: 7, code: "READINESS_TIMEOUT", step: "readiness", next: "recheckReadiness" } as unknown as typeof FAILED;
    const { runOnce, posts } = await failedNode(t, OTHER);
    const run = await runOnce();
    assert.equal(run.outcome.kind, "installed", run.printed);
    assert.deepEqual(posts(), ["POST /v1/installer/install"], "an install, no recheck of attempt 7");
  });

  it("one interrupted at firstboot (it may have finished: a retry runs it again) is never started again by the fleet, whoever started it; it fails with its message and what to do, and an install started on the node by hand is what a later run follows", { timeout: 30_000 }, async (t) => {
    const message = "The installer stopped during firstboot \x1b[2J: firstboot may have finished; check on the node whether firstboot completed.";
    const INTERRUPTED = { ...FAILED, code: "INTERRUPTED", message } as unknown as typeof FAILED;
    const { runOnce, posts, access } = await failedNode(t, INTERRUPTED);
    for (const before of [undefined, { starting: true }, undefined] as Array<NodeRecord | undefined>) {
      const run = await runOnce(before);
      assert.equal(run.outcome.kind, "failed", run.printed);
      assert.equal(run.outcome.attempt, 1);
      assert.ok(run.outcome.detail.startsWith(`INTERRUPTED: ${message} (next: retryInstall); not started again by the fleet`), run.outcome.detail);
      assert.match(run.outcome.detail, /not started again by the fleet: .*if it must be installed again, start that install on the node \(its console, or POST \/v1\/installer\/install with curl\), then run the fleet again: it follows that attempt/);
      assert.match(run.printed, /\[n1\] error: attempt 1 failed: INTERRUPTED: The installer stopped during firstboot \\x1b\[2J: .*\(next: retryInstall\); not started again by the fleet/);
      assert.doesNotMatch(run.printed, /\x1b/);
      assert.deepEqual(posts(), [], "nothing started");
      assert.deepEqual(run.nodes.n1, { attempt: 1, outcome: "failed" });
    }
    // The operator's own install (as curl would send it); the fleet goes by it.
    await new NodeApi(access).install();
    const after = await runOnce();
    assert.equal(after.outcome.kind, "installed", after.printed);
    assert.deepEqual(posts(), ["POST /v1/installer/install"], "only the operator's");
  });
});

describe("fleet: how a node's run ends for the error its turn met (outcomeOf)", () => {
  it("this machine out of open files as the turn opened a connection: the node's run ends stopped, saying whose limit and what to do, not thrown on (which ended the whole fleet with a stack trace) nor said unreachable", () => {
    for (const code of ["EMFILE", "ENFILE"] as const) {
      const ended = outcomeOf(new OutOfFilesError("127.0.0.1:9443", code));
      assert.equal(ended?.kind, "stopped");
      assert.equal(ended?.detail, `no connection to 127.0.0.1:9443: this machine has too many open files (${code}): raise its limit (${code === "EMFILE" ? "ulimit -n" : "sysctl fs.file-max"}), then run the fleet again: it goes on from where this node is`);
    }
  });

  it("the node's own trouble keeps its kind: out of reach unreachable, a wrong answer failed; an error of the fleet's own is thrown on", () => {
    assert.deepEqual(outcomeOf(new HttpClientError("unreachable", "127.0.0.1:9443", "connect ECONNREFUSED")), { kind: "unreachable", detail: "connect ECONNREFUSED" });
    assert.equal(outcomeOf(new HttpClientError("schema", "127.0.0.1:9443", "HTTP 200: the answer is not of its schema (phase: x)"))?.kind, "failed");
    assert.equal(outcomeOf(new TypeError("x is not a function")), undefined);
  });
});
