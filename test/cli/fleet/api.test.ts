import assert from "node:assert/strict";
import { once } from "node:events";
import { type IncomingMessage, maxHeaderSize, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { describe, it } from "node:test";
import { ApiProblem, NodeApi, worthAskingAgain, wrongAnswer } from "../../../cli/fleet/api.ts";
import { refusal } from "../../../cli/fleet/connect.ts";
import { formatFingerprint } from "../../../cli/fleet/node-access.ts";
import { HttpClientError } from "../../../core/http/client.ts";
import { fakeInstaller } from "../../helpers/fake-node.ts";

const STATUS = { phase: "configuring", version: "stratum-installer 1", profile: "single-node", hostname: "n1", url: "https://n1:9443", configValid: false, attempt: 0 };

const installer = fakeInstaller;

const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

const rejection = async (promise: Promise<unknown>) => promise.then(() => assert.fail("resolved"), (error: unknown) => error);

describe("fleet: one node's API over the client", () => {
  it("asks with the install code over the pinned certificate and parses the answer with the API's schema", async (t) => {
    const node = await installer(t, json(200, STATUS));
    const status = await new NodeApi({ url: node.url, pin: node.pin, code: "c0de" }).status();
    assert.deepEqual(status, STATUS);
    assert.deepEqual(node.seen, ["GET /v1/installer/status Bearer c0de"]);
  });

  it("another certificate than the plan's: refused in the fleet's words (the client's tests show nothing is sent)", async (t) => {
    const node = await installer(t, json(200, STATUS));
    const error = await rejection(new NodeApi({ url: node.url, pin: "ab".repeat(32), code: "c0de" }).status());
    assert.ok(error instanceof HttpClientError);
    const expected = `${node.url.host} presented a certificate whose SHA-256 is ${formatFingerprint(node.pin)}, not the plan's ${formatFingerprint("ab".repeat(32))}: refused, nothing was sent (compare with the TLS SHA-256 line of its installer's banner)`;
    assert.equal(error.message, expected);
    assert.equal(refusal(error), expected);
  });

  it("a node out of reach is unreachable, with the reason", async () => {
    const server = createTcpServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await rejection(new NodeApi({ url: new URL(`https://127.0.0.1:${port}`), pin: "ab".repeat(32), code: "c" }).status());
    assert.ok(error instanceof HttpClientError);
    assert.match(error.message, new RegExp(`^127\\.0\\.0\\.1:${port} is unreachable: connect ECONNREFUSED`));
  });

  it("a node that answers with malformed HTTP (a header section over Node's limit) gave an answer no installer gives: named with the parser's code, not unreachable, not asked again", async (t) => {
    const node = await installer(t, (req) => req.socket.end(`HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(maxHeaderSize)}\r\nContent-Length: 2\r\n\r\n{}`));
    const error = await rejection(new NodeApi({ url: node.url, pin: node.pin, code: "c" }).status());
    assert.ok(error instanceof HttpClientError);
    assert.equal(error.message, `${node.url.host} gave an answer that is not its installer's: malformed HTTP (HPE_HEADER_OVERFLOW: Header overflow, a header section over ${maxHeaderSize / 1024} KiB)`);
    assert.deepEqual([wrongAnswer(error), worthAskingAgain(error)], [true, false]);
  });

  it("another status is the node's problem; a wrong shape is named, not a TypeError later", async (t) => {
    let answer = json(409, { code: "INSTALL_RUNNING", detail: "attempt 2 runs", title: "Conflict" });
    const node = await installer(t, (req, res) => answer(req, res));
    const api = new NodeApi({ url: node.url, pin: node.pin, code: "c" });
    const problem = await rejection(api.install());
    assert.ok(problem instanceof ApiProblem);
    assert.deepEqual([problem.status, problem.code, problem.message], [409, "INSTALL_RUNNING", "attempt 2 runs"]);
    assert.equal(await api.verdict(2), undefined, "a verdict while the attempt runs is none yet");
    answer = json(200, { ...STATUS, phase: "resting" });
    const shape = await rejection(api.status());
    assert.ok(shape instanceof HttpClientError);
    assert.equal(shape.kind, "schema");
    assert.match(shape.message, new RegExp(`^${node.url.host.replaceAll(".", "\\.")} gave an answer that is not its installer's: HTTP 200: the answer is not of its schema \\(phase: `));
  });

  it("a later installer's step, profile and codes (a problem's, a verdict's: plain strings in the seeds) are taken as they are, in its status, verdicts and events; a step that is not a name is not", async (t) => {
    let answer = json(200, { ...STATUS, phase: "installing", attempt: 1, profile: "edge", step: "image-pull" });
    const node = await installer(t, (req, res) => answer(req, res));
    const api = new NodeApi({ url: node.url, pin: node.pin, code: "c" });
    assert.deepEqual(await api.status(), { ...STATUS, phase: "installing", attempt: 1, profile: "edge", step: "image-pull" });
    answer = json(409, { code: "INSTALL_PAUSED", detail: "paused by the operator", title: "Conflict" });
    const problem = await rejection(api.install());
    assert.ok(problem instanceof ApiProblem);
    assert.deepEqual([problem.status, problem.code, problem.message], [409, "INSTALL_PAUSED", "paused by the operator"]);
    const verdict = { attempt: 1, kind: "install", outcome: "failed", step: "image-pull", code: "IMAGE_PULL_FAILED", message: "no registry", next: "retryInstall" };
    answer = json(200, verdict);
    assert.deepEqual(await api.verdict(1), verdict);
    const event = { seq: 1, attempt: 1, time: "2026-01-01T00:00:00.000Z", type: "step.started", step: "image-pull", level: "info", message: "pulling" };
    answer = (_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify(event)}\n\n`);
    const events = [];
    for await (const e of api.events(1, 0, new AbortController().signal)) events.push(e);
    assert.deepEqual(events, [event]);
    answer = json(200, { ...STATUS, phase: "installing", attempt: 1, step: "\u001b[2Jwiped" });
    const shape = await rejection(api.status());
    assert.ok(shape instanceof HttpClientError);
    assert.equal(shape.kind, "schema");
  });

  it("a refusal whose problem is of the wrong shape is named, not a TypeError later; one that is not JSON keeps its status", async (t) => {
    let answer = json(409, { code: "INSTALL_BLOCKED", detail: "blocked", blockers: "the disks" });
    const node = await installer(t, (req, res) => answer(req, res));
    const api = new NodeApi({ url: node.url, pin: node.pin, code: "c" });
    const shape = await rejection(api.install());
    assert.ok(shape instanceof HttpClientError);
    assert.equal(shape.kind, "schema");
    assert.match(shape.message, /gave an answer that is not its installer's: HTTP 409: the answer is not of its schema \(blockers: /);
    answer = (_req, res) => res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad Gateway</h1>");
    const gateway = await rejection(api.install());
    assert.ok(gateway instanceof ApiProblem);
    assert.deepEqual([gateway.status, gateway.code], [502, "HTTP_502"]);
  });
});

describe("fleet: an attempt's events", () => {
  it("a stream the installer ends saying it stops is a node going out of reach for a while, said so, worth following again; one ended otherwise is not an error", async (t) => {
    const event = { seq: 1, attempt: 1, time: "2026-01-01T00:00:00.000Z", type: "step.log", step: "firstboot", level: "info", message: "working" };
    let ending = ": installer stopping\n\n";
    const node = await installer(t, (_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify(event)}\n\n${ending}`));
    const api = new NodeApi({ url: node.url, pin: node.pin, code: "c" });
    const read = async () => {
      const seen: number[] = [];
      try {
        for await (const e of api.events(1, 0, new AbortController().signal)) seen.push(e.seq);
      } catch (error) {
        return { seen, error };
      }
      return { seen };
    };
    const stopped = await read();
    assert.deepEqual(stopped.seen, [1]);
    assert.ok(stopped.error instanceof HttpClientError, String(stopped.error));
    assert.equal(stopped.error.kind, "unreachable");
    assert.equal(stopped.error.message, `the installer at ${node.url.host} is stopping (a restart, or a stop)`);
    assert.equal(worthAskingAgain(stopped.error), true);
    ending = ": heartbeat\n\n";
    assert.deepEqual(await read(), { seen: [1] });
  });
});

describe("fleet: which failures are worth asking again (a join token, a verdict)", () => {
  it("a node busy or out of reach, yes; one that refused, answered what no installer answers, or presented another certificate, no", () => {
    for (const error of [new ApiProblem(500, {}), new ApiProblem(503, {}), new ApiProblem(429, {}), new HttpClientError("unreachable", "x", "refused"), new HttpClientError("timeout", "x", "slow"), new HttpClientError("broken", "x", "cut")]) {
      assert.equal(worthAskingAgain(error), true, `${error.name} ${error.message}`);
    }
    for (const error of [new ApiProblem(404, {}), new ApiProblem(401, {}), new ApiProblem(409, {}), new HttpClientError("tls-mismatch", "x", "other certificate"), new HttpClientError("schema", "x", "lies"), new HttpClientError("too-large", "x", "huge"), new Error("bug")]) {
      assert.equal(worthAskingAgain(error), false, `${error.name} ${error.message}`);
    }
  });
});
