import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { describe, it, type TestContext } from "node:test";
import { z } from "zod";
import { generateSelfSignedCert } from "../../../core/access/tls.ts";
import { HttpClientError } from "../../../core/http/client.ts";
import { createIdleConnections } from "../../../core/http/connections.ts";
import { readEvents, SSE_LIMITS, STOPPING_COMMENT, type SseLimits, type SseMessage, sseMessages } from "../../../core/http/sse.ts";

async function messages(chunks: string[], limits: SseLimits = SSE_LIMITS): Promise<SseMessage[]> {
  const found: SseMessage[] = [];
  for await (const message of sseMessages(Readable.from(chunks.map((c) => Buffer.from(c))), limits, "here")) found.push(message);
  return found;
}

describe("reading an event stream", () => {
  it("messages split anywhere (a character too), comments skipped, CRLF and CR too, a message cut off at the end dropped", async () => {
    const stream = ': heartbeat\n\nid: 1\ndata: {"seq":1}\n\nid: 2\r\ndata: {"é":2}\r\n\r\nid: 3\rdata: 3\r\rid: 4\ndata: {"se';
    for (const size of [1, 3, 7, stream.length]) {
      const bytes = Buffer.from(stream);
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
      const found: SseMessage[] = [];
      for await (const message of sseMessages(Readable.from(chunks), SSE_LIMITS, "here")) found.push(message);
      assert.deepEqual(found, [{ id: "1", data: '{"seq":1}' }, { id: "2", data: '{"é":2}' }, { id: "3", data: "3" }], `chunks of ${size} bytes`);
    }
  });

  it("each comment line is heard, without its colon and one space", async () => {
    const heard: string[] = [];
    for await (const _ of sseMessages(Readable.from([Buffer.from(": heartbeat\n\nid: 1\ndata: 1\n\n:installer stopping\r\n\r\n")]), SSE_LIMITS, "here", (text) => heard.push(text)));
    assert.deepEqual(heard, ["heartbeat", "installer stopping"]);
  });

  it("a message of several data lines is one message", async () => {
    assert.deepEqual(await messages(["data: a\ndata: b\n\n"]), [{ data: "a\nb" }]);
  });

  it("a line over the line cap is too-large, whether it ends or not", async () => {
    const limits = { maxLine: 16, maxEvent: 1024 };
    assert.deepEqual(await messages([`data: ${"x".repeat(10)}\n\n`], limits), [{ data: "x".repeat(10) }]);
    for (const chunks of [[`data: ${"x".repeat(11)}\n\n`], ["data: ", "x".repeat(20)]]) {
      await assert.rejects(messages(chunks, limits), (error: unknown) => error instanceof HttpClientError && error.kind === "too-large" && /line is over 16 characters/.test(error.message));
    }
  });

  it("an event over the event cap is too-large, though each of its lines is short", async () => {
    const limits = { maxLine: 64, maxEvent: 32 };
    await assert.rejects(messages([`${"data: 0123456789\n".repeat(4)}\n`], limits), (error: unknown) => error instanceof HttpClientError && error.kind === "too-large" && /event is over 32 characters/.test(error.message));
  });
});

const Event = z.object({ seq: z.number(), type: z.string() });
type Event = z.infer<typeof Event>;

/** A real HTTPS event stream of events 1..total, the last attempt.finished: it closes the stream only after `closeAfter` events, or refuses. */
async function eventServer(t: TestContext, total: number, options: { closeAfter?: number; refuse?: boolean; endAfterFinal?: boolean } = {}) {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "sse-test", dnsNames: [], ipAddresses: ["127.0.0.1"] });
  const pin = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
  const asked: Array<string | undefined> = [];
  const open = new Set<ServerResponse>();
  const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    asked.push(req.headers["last-event-id"] as string | undefined);
    if (req.headers.accept !== "text/event-stream") return res.writeHead(406).end();
    if (options.refuse) return res.writeHead(401, { "content-type": "application/problem+json" }).end('{"code":"UNAUTHORIZED"}');
    res.writeHead(200, { "content-type": "text/event-stream" });
    open.add(res);
    res.on("close", () => open.delete(res));
    const from = Number(req.headers["last-event-id"] ?? 0) + 1;
    let sent = 0;
    for (let seq = from; seq <= total; seq++) {
      if (sent++ === options.closeAfter) return res.end();
      res.write(`: heartbeat\n\nid: ${seq}\ndata: ${JSON.stringify({ seq, type: seq === total ? "attempt.finished" : "step.log" })}\n\n`);
    }
    if (options.endAfterFinal) res.end();
  });
  let handshakes = 0;
  let closed = 0;
  server.on("secureConnection", () => (handshakes += 1));
  server.on("connection", (socket) => socket.on("close", () => (closed += 1)));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  const read = async (lastEventId?: string, connections?: ReturnType<typeof createIdleConnections>) => {
    const seen: Array<{ id?: string; event: Event }> = [];
    const events = readEvents({ url, trust: { pin }, timeoutMs: 5_000, idleMs: 5_000, lastEventId, schema: Event, isFinal: (e) => e.type === "attempt.finished", ...(connections ? { connections } : {}) });
    for await (const item of events) seen.push(item);
    return seen;
  };
  return { asked, read, open: () => open.size, handshakes: () => handshakes, closed: () => closed };
}

describe("following events over HTTPS", () => {
  it("ends at the final event though the server keeps the stream open, and closes it", async (t) => {
    const server = await eventServer(t, 3);
    const seen = await server.read();
    assert.deepEqual(seen.map((s) => [s.id, s.event.seq]), [["1", 1], ["2", 2], ["3", 3]]);
    assert.deepEqual(server.asked, [undefined]);
    while (server.open() > 0) await new Promise((resolve) => setImmediate(resolve));
  });

  it("a stream the server ends after its final event leaves its connection for the next request to that origin: one handshake for two streams", async (t) => {
    const server = await eventServer(t, 3, { endAfterFinal: true });
    const connections = createIdleConnections({ idleMs: 60_000, max: 8 });
    assert.deepEqual((await server.read(undefined, connections)).map((s) => s.event.seq), [1, 2, 3]);
    // Kept once the stream's end is read (just after its final event), or closed: whichever comes first.
    while (connections.size === 0 && server.closed() === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([connections.size, server.closed()], [1, 0]);
    assert.deepEqual((await server.read(undefined, connections)).map((s) => s.event.seq), [1, 2, 3]);
    assert.equal(server.handshakes(), 1);
  });

  it("a stream that ends early is resumed with Last-Event-ID: each event once, in order", async (t) => {
    const server = await eventServer(t, 5, { closeAfter: 2 });
    const first = await server.read();
    assert.deepEqual(first.map((s) => s.event.seq), [1, 2]);
    const second = await server.read(first.at(-1)!.id);
    assert.deepEqual(second.map((s) => s.event.seq), [3, 4]);
    const third = await server.read(second.at(-1)!.id);
    assert.deepEqual(third.map((s) => s.event.seq), [5]);
    assert.deepEqual(server.asked, [undefined, "2", "4"]);
  });

  it("a stream whose connection drops (the installer killed): broken, said in words, not Node's bare 'aborted'", async (t) => {
    const { certPem, keyPem } = generateSelfSignedCert({ commonName: "sse-test", dnsNames: [], ipAddresses: ["127.0.0.1"] });
    const pin = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
    const server = createServer({ cert: certPem, key: keyPem }, (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`id: 1\ndata: ${JSON.stringify({ seq: 1, type: "step.log" })}\n\n`, () => res.socket?.destroy());
    }).listen(0, "127.0.0.1");
    await once(server, "listening");
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    const seen: number[] = [];
    const error = await (async () => {
      for await (const { event } of readEvents({ url, trust: { pin }, timeoutMs: 5_000, idleMs: 5_000, schema: Event })) seen.push(event.seq);
    })().then(() => assert.fail("ended"), (err: unknown) => err);
    assert.deepEqual(seen, [1]);
    assert.ok(error instanceof HttpClientError, String(error));
    assert.deepEqual([error.kind, error.message], ["broken", "the connection closed before the stream ended"]);
  });

  it("a stream that ends with the installer's word that it stops is said to the reader; one that ends otherwise is not", async (t) => {
    const { certPem, keyPem } = generateSelfSignedCert({ commonName: "sse-test", dnsNames: [], ipAddresses: ["127.0.0.1"] });
    const pin = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
    const endings = [`: ${STOPPING_COMMENT}\n\n`, `: ${STOPPING_COMMENT}\n\n: heartbeat\n\n`, `: ${STOPPING_COMMENT}\n\nid: 2\ndata: {"seq":2,"type":"step.log"}\n\n`, ""];
    const server = createServer({ cert: certPem, key: keyPem }, (req, res) => res.writeHead(200).end(`id: 1\ndata: {"seq":1,"type":"step.log"}\n\n${endings[Number(req.url!.slice(1))]}`)).listen(0, "127.0.0.1");
    await once(server, "listening");
    t.after(() => server.close());
    const said: boolean[] = [];
    for (const [i] of endings.entries()) {
      let stopping = false;
      const events = readEvents({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/${i}`, trust: { pin }, timeoutMs: 5_000, idleMs: 5_000, schema: Event, onStopping: () => (stopping = true) });
      for await (const _ of events);
      said.push(stopping);
    }
    assert.deepEqual(said, [true, false, false, false]);
  });

  for (const [what, id, data, kind, said] of [
    ["not of the schema", "1", '{"seq":"one"}', "schema", /^event 1 of the stream is not of its schema \(seq: .+\)$/],
    ["not JSON", "1", "<html>", "not-json", /^event 1 of the stream is not JSON$/],
    ["not JSON, its id no installer's (the node's text is not repeated)", "\u001b]0;x\u0007", "<html>", "not-json", /^an event of the stream is not JSON$/],
  ] as const) {
    it(`an event ${what} is a ${kind} error naming the event, not an event, nor "HTTP 200: the answer" (the stream's status, not the event)`, async (t) => {
      const { certPem, keyPem } = generateSelfSignedCert({ commonName: "sse-test", dnsNames: [], ipAddresses: ["127.0.0.1"] });
      const pin = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
      const server = createServer({ cert: certPem, key: keyPem }, (_req, res) => res.writeHead(200).end(`id: ${id}\ndata: ${data}\n\n`)).listen(0, "127.0.0.1");
      await once(server, "listening");
      t.after(() => server.close());
      const events = readEvents({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`, trust: { pin }, timeoutMs: 5_000, idleMs: 5_000, schema: Event });
      const error = await (async () => {
        for await (const _ of events) assert.fail("an event came through");
      })().then(() => assert.fail("no error"), (err: unknown) => err);
      assert.ok(error instanceof HttpClientError, String(error));
      assert.equal(error.kind, kind);
      assert.match(error.message, said);
      assert.equal(error.answer, undefined, "an event is not an answer: a status read off it would be the stream's");
    });
  }

  it("another status than 200 is a status error with the answer read", async (t) => {
    const server = await eventServer(t, 1, { refuse: true });
    const error = await server.read().catch((err: unknown) => err);
    assert.ok(error instanceof HttpClientError);
    assert.deepEqual([error.kind, error.answer?.status, error.answer?.body], ["status", 401, '{"code":"UNAUTHORIZED"}']);
  });
});
