import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, maxHeaderSize, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { z } from "zod";
import { generateSelfSignedCert } from "../../../core/access/tls.ts";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { certificateSha256, download, HttpClientError, nothingSent, openStream, request, requestJson } from "../../../core/http/client.ts";
import { createIdleConnections } from "../../../core/http/connections.ts";
import { tempDir } from "../../helpers/installer.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const json = (status: number, body: unknown): Handler => (_req, res) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
const trickle: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.flushHeaders();
  const timer = setInterval(() => res.write(" "), 50);
  res.on("close", () => clearInterval(timer));
};

interface Served {
  url: string;
  certPem: string;
  sha256: string;
  /** Requests the handler saw. */
  requests: () => number;
  /** Bytes of application data received, over every connection. */
  bytes: () => number;
  /** Resolves once `n` TCP connections have closed on the server's side. */
  closed: (n: number) => Promise<void>;
  /** TLS handshakes the server completed. */
  handshakes: () => number;
  /** TCP connections open now. */
  open: () => number;
  server: import("node:https").Server;
}

/** A real HTTPS server on 127.0.0.1 with a certificate of its own, counting what reaches it. */
const selfSigned = () => {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "client-test", dnsNames: [], ipAddresses: ["127.0.0.1"] });
  return { certPem, keyPem, sha256: createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex") };
};

async function serveHttps(t: TestContext, handler: Handler): Promise<Served> {
  const { certPem, keyPem, sha256 } = selfSigned();
  let requests = 0;
  let bytes = 0;
  let closedCount = 0;
  let handshakes = 0;
  let open = 0;
  const waiters: Array<() => void> = [];
  const server = createHttpsServer({ cert: certPem, key: keyPem }, (req, res) => {
    requests += 1;
    handler(req, res);
  });
  server.on("secureConnection", (socket: Socket) => {
    handshakes += 1;
    socket.on("data", (chunk: Buffer) => (bytes += chunk.length));
  });
  // TCP, not TLS: a client that leaves right after its handshake may leave the server's unfinished.
  server.on("connection", (socket: Socket) => {
    open += 1;
    socket.on("close", () => {
      open -= 1;
      closedCount += 1;
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const closed = async (n: number) => {
    while (closedCount < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, certPem, sha256, requests: () => requests, bytes: () => bytes, closed, handshakes: () => handshakes, open: () => open, server };
}

const rejection = async (promise: Promise<unknown>): Promise<HttpClientError> => {
  const error = await promise.then(() => assert.fail("resolved"), (err: unknown) => err);
  assert.ok(error instanceof HttpClientError, String(error));
  return error;
};

const base = { timeoutMs: 5_000, maxBytes: 1024 * 1024 } as const;

describe("pinned", () => {
  test("the pinned certificate: the request goes out and its answer comes back, with the certificate it met", async (t) => {
    const server = await serveHttps(t, (req, res) => res.writeHead(200, { etag: '"7"' }).end(`${req.method} ${req.url} ${req.headers.authorization}`));
    const answer = await request({ ...base, url: `${server.url}/v1/x?y=1`, trust: { pin: server.sha256 }, headers: { authorization: "Bearer c" } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.etag, '"7"');
    assert.equal(answer.body, "GET /v1/x?y=1 Bearer c");
    assert.equal(answer.certificate, server.sha256);
  });

  test("another certificate than the pinned one: refused on the handshake, not a byte of the request reaches the server", async (t) => {
    const server = await serveHttps(t, json(200, {}));
    const pin = "0".repeat(64);
    const error = await rejection(request({ ...base, url: server.url, trust: { pin }, method: "POST", headers: { authorization: "Bearer secret" }, body: "{}" }));
    assert.equal(error.kind, "tls-mismatch");
    assert.equal(error.presented, server.sha256);
    assert.equal(error.where, new URL(server.url).host);
    assert.match(error.message, new RegExp(`presented a certificate with SHA-256 ${server.sha256}, not the pinned 0{64}$`));
    await server.closed(1); // whatever the client wrote arrived before its close
    assert.equal(server.requests(), 0);
    assert.equal(server.bytes(), 0);
  });
});

describe("CA-verified", () => {
  test("a certificate the given CA vouches for (for the address asked) is trusted", async (t) => {
    const server = await serveHttps(t, json(200, { ok: true }));
    const answer = await request({ ...base, url: server.url, trust: { ca: server.certPem } });
    assert.equal(answer.body, '{"ok":true}');
  });

  test("one no CA vouches for (the system's or the given one) is refused before a byte is sent", async (t) => {
    const server = await serveHttps(t, json(200, {}));
    const other = generateSelfSignedCert({ commonName: "other", dnsNames: [], ipAddresses: ["127.0.0.1"] }).certPem;
    for (const trust of [{}, { ca: other }]) {
      const error = await rejection(request({ ...base, url: server.url, trust }));
      assert.equal(error.kind, "tls-mismatch");
      assert.match(error.message, /presented a certificate that does not verify \(/);
    }
    await server.closed(2);
    assert.equal(server.requests(), 0);
    assert.equal(server.bytes(), 0);
  });
});

test("plain http on loopback (a readiness URL): no TLS, no certificate", async (t) => {
  const server = createHttpServer(json(200, { state: "READY" })).listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  const answer = await request({ ...base, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/readiness`, trust: "any" });
  assert.deepEqual([answer.status, answer.body, answer.certificate], [200, '{"state":"READY"}', undefined]);
});

// The deadlines here cover the TLS handshake too: 1.5 s, so that a busy machine's handshake is not what runs out.
describe("one deadline for the whole exchange", () => {
  test("headers then a trickle: a timeout when it passes", async (t) => {
    const server = await serveHttps(t, trickle);
    const error = await rejection(request({ ...base, url: server.url, trust: "any", timeoutMs: 1500 }));
    assert.deepEqual([error.kind, error.message], ["timeout", "no complete answer within 1.5 s"]);
  });

  test("an event stream refused (not 200) with a body that trickles: a timeout when the deadline passes, not a read as long as each byte comes within the stream's idle time", async (t) => {
    const server = await serveHttps(t, (req, res) => {
      res.writeHead(409, { "content-type": "application/problem+json" });
      res.flushHeaders();
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const error = await rejection(openStream({ ...base, url: server.url, trust: "any", timeoutMs: 1500, idleMs: 60_000 }));
    assert.deepEqual([error.kind, error.message], ["timeout", "no complete answer within 1.5 s"]);
  });

  test("a server that accepts TCP and never does TLS: unreachable, nothing sent", async (t) => {
    const sockets = new Set<Socket>();
    const blackhole = createTcpServer((socket) => sockets.add(socket.on("error", () => undefined))).listen(0, "127.0.0.1");
    await once(blackhole, "listening");
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      blackhole.close();
    });
    const error = await rejection(request({ ...base, url: `https://127.0.0.1:${(blackhole.address() as AddressInfo).port}`, trust: { pin: "a".repeat(64) }, timeoutMs: 300 }));
    assert.deepEqual([error.kind, error.message], ["unreachable", "no TLS handshake within 0.3 s"]);
  });

  test("a connection that drops mid-answer (the server killed as it answered): broken, said in words, not Node's bare 'aborted'", async (t) => {
    const server = await serveHttps(t, (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"half":', () => res.socket?.destroy());
    });
    const error = await rejection(request({ ...base, url: server.url, trust: "any" }));
    assert.deepEqual([error.kind, error.message], ["broken", "the connection closed before the answer was complete"]);
  });

  test("an answer that switches protocols (101, which no installer gives) ends the request at once, a status error: never an exchange left waiting past its deadline", { timeout: 20_000 }, async (t) => {
    const switching = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    // One that switches and keeps the connection open, one that switches and closes it.
    for (const close of [false, true]) {
      const server = await serveHttps(t, (req) => (close ? req.socket.end(switching) : req.socket.write(switching)));
      for (const asked of [request({ ...base, url: server.url, trust: "any" }), requestJson({ ...base, url: server.url, trust: "any", method: "POST", body: "{}" }, 202, z.unknown()), openStream({ ...base, url: server.url, trust: "any", idleMs: 60_000 })]) {
        const error = await rejection(asked);
        assert.deepEqual([error.kind, error.answer?.status], ["status", 101]);
        assert.match(error.message, /^HTTP 101: it switched to another protocol/);
      }
    }
  });

  test("a closed port: unreachable with the reason", async () => {
    const server = createTcpServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await rejection(request({ ...base, url: `https://127.0.0.1:${port}`, trust: "any" }));
    assert.equal(error.kind, "unreachable");
    assert.match(error.message, /ECONNREFUSED/);
  });

  test("https:// to what does not speak TLS (a plain HTTP server, another service on the port): unreachable, said in words, not OpenSSL's raw line", async (t) => {
    const plain = createHttpServer((_req, res) => res.end("hi")).listen(0, "127.0.0.1");
    await once(plain, "listening");
    t.after(() => {
      plain.closeAllConnections();
      plain.close();
    });
    const error = await rejection(request({ ...base, url: `https://127.0.0.1:${(plain.address() as AddressInfo).port}`, trust: { pin: "a".repeat(64) } }));
    assert.deepEqual([error.kind, error.message], ["unreachable", "no TLS handshake: what answers there does not speak TLS (plain HTTP, or another service on that port?)"]);
  });

  test("the caller's signal ends the request with its own reason", async (t) => {
    const controller = new AbortController();
    const reason = new Error("stopped");
    const server = await serveHttps(t, (req, res) => {
      trickle(req, res);
      controller.abort(reason);
    });
    await assert.rejects(request({ ...base, url: server.url, trust: "any", timeoutMs: 60_000, signal: controller.signal }), reason);
  });
});

test("the body cap: an answer at it is read, one character over is too-large", async (t) => {
  // Two bytes a character, so that characters are cut between chunks.
  let size = 0;
  const server = await serveHttps(t, (_req, res) => res.end("é".repeat(size / 2)));
  size = 64 * 1024;
  assert.equal((await request({ ...base, url: server.url, trust: "any", maxBytes: 64 * 1024 })).body, "é".repeat(32 * 1024));
  size = 64 * 1024 + 2;
  const error = await rejection(request({ ...base, url: server.url, trust: "any", maxBytes: 64 * 1024 }));
  assert.deepEqual([error.kind, error.message], ["too-large", "the answer is over 64 KiB"]);
});

describe("answers parsed with the caller's schema", () => {
  const Readiness = z.object({ state: z.string(), checks: z.array(z.object({ name: z.string() })).optional() });

  test("an answer of the schema's shape is its parsed value", async (t) => {
    const server = await serveHttps(t, json(200, { state: "READY", checks: [{ name: "ceph" }] }));
    assert.deepEqual((await requestJson({ ...base, url: server.url, trust: "any" }, 200, Readiness)).body, { state: "READY", checks: [{ name: "ceph" }] });
  });

  test("another shape is a named schema error that says where, never a TypeError later", async (t) => {
    const server = await serveHttps(t, json(200, { state: "READY", checks: [{ name: 7 }] }));
    const error = await rejection(requestJson({ ...base, url: server.url, trust: "any" }, 200, Readiness));
    assert.equal(error.kind, "schema");
    assert.match(error.message, /^HTTP 200: the answer is not of its schema \(checks\.0\.name: /);
    assert.equal(error.answer?.body, '{"state":"READY","checks":[{"name":7}]}');
  });

  test("a body that is not JSON, and another status than expected (its answer kept for the caller)", async (t) => {
    let handler: Handler = (_req, res) => res.end("<html>");
    const server = await serveHttps(t, (req, res) => handler(req, res));
    const notJson = await rejection(requestJson({ ...base, url: server.url, trust: "any" }, 200, Readiness));
    assert.deepEqual([notJson.kind, notJson.message], ["not-json", "HTTP 200: the answer is not JSON"]);
    handler = json(409, { code: "INSTALL_RUNNING" });
    const status = await rejection(requestJson({ ...base, url: server.url, trust: "any" }, 200, Readiness));
    assert.deepEqual([status.kind, status.answer?.status, status.answer?.body], ["status", 409, '{"code":"INSTALL_RUNNING"}']);
  });

  test("a parser of the caller's own: its words are the error's", async (t) => {
    const server = await serveHttps(t, json(200, {}));
    const parser = { parse: () => { throw new Error('the answer has no "state"'); } };
    const error = await rejection(requestJson({ ...base, url: server.url, trust: "any" }, 200, parser));
    assert.equal(error.message, 'HTTP 200: the answer has no "state"');
  });
});

test("certificateSha256 reads an https URL's certificate and sends nothing", async (t) => {
  const server = await serveHttps(t, json(200, {}));
  assert.equal(await certificateSha256(server.url, 5000), server.sha256);
  await assert.rejects(certificateSha256(server.url.replace("https:", "http:"), 5000), /http:\/\/ has no certificate/);
  await server.closed(1);
  assert.equal(server.requests(), 0);
  assert.equal(server.bytes(), 0);
});

describe("download: a binary answer streamed to a file", () => {
  const BODY = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));
  const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
  const binary: Handler = (_req, res) => res.writeHead(200, { "content-type": "application/gzip" }).end(BODY);

  test("its temp file has a name no one can guess, made new: a file planted at the name it had (.NAME.PID.tmp) is not written into", async (t) => {
    const server = await serveHttps(t, binary);
    const dir = await tempDir("stratum-download-");
    const path = join(dir, "n.tar.gz");
    const planted = join(dir, `.n.tar.gz.${process.pid}.tmp`);
    await writeFile(planted, "someone else's");
    let temp = "";
    await download({ ...base, url: server.url, trust: { pin: server.sha256 } }, path, async (t) => ((temp = t), path));
    assert.match(temp, new RegExp(`/\\.n\\.tar\\.gz\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
    assert.equal(await readFile(planted, "utf8"), "someone else's");
    assert.deepEqual(await readFile(path), BODY);
  });

  test("the whole answer in the file, mode 0600, with its size and SHA-256; no temp file left", async (t) => {
    const server = await serveHttps(t, binary);
    const dir = await tempDir("stratum-download-");
    const path = join(dir, "n.tar.gz");
    assert.deepEqual(await download({ ...base, url: server.url, trust: { pin: server.sha256 } }, path), { size: BODY.length, sha256: sha256(BODY), path });
    assert.deepEqual(await readFile(path), BODY);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(dir), ["n.tar.gz"]);
  });

  test("over the cap, cut off, a timeout, another certificate: an error, and the file as it was (no half, no temp)", async (t) => {
    const cut: Handler = (_req, res) => {
      res.writeHead(200, { "content-length": String(BODY.length) });
      res.write(BODY.subarray(0, 1000), () => res.socket?.destroy());
    };
    const cases: Array<[string, Handler, Partial<Parameters<typeof download>[0]>]> = [
      ["too-large", binary, { maxBytes: 100_000 }],
      ["broken", cut, {}],
      ["timeout", trickle, { timeoutMs: 1500 }],
      ["tls-mismatch", binary, { trust: { pin: "0".repeat(64) } }],
    ];
    for (const [kind, handler, change] of cases) {
      const server = await serveHttps(t, handler);
      const dir = await tempDir("stratum-download-");
      const path = join(dir, "n.tar.gz");
      await writeFile(path, "an earlier bundle");
      const error = await rejection(download({ ...base, url: server.url, trust: { pin: server.sha256 }, ...change }, path));
      assert.equal(error.kind, kind, error.message);
      assert.equal(await readFile(path, "utf8"), "an earlier bundle", kind);
      assert.deepEqual(await readdir(dir), ["n.tar.gz"], kind);
      if (kind === "tls-mismatch") {
        await server.closed(1);
        assert.deepEqual([server.requests(), server.bytes()], [0, 0], "nothing sent to another certificate");
      }
    }
  });

  test("another status than 200: a status error with the refusal's body, no file", async (t) => {
    const server = await serveHttps(t, json(401, { code: "UNAUTHORIZED" }));
    const dir = await tempDir("stratum-download-");
    const error = await rejection(download({ ...base, url: server.url, trust: { pin: server.sha256 } }, join(dir, "n.tar.gz")));
    assert.deepEqual([error.kind, error.answer?.status, error.answer?.body], ["status", 401, '{"code":"UNAUTHORIZED"}']);
    assert.deepEqual(await readdir(dir), []);
  });
});

describe("a checked connection carries the next requests to its origin", () => {
  /** A pool of the test's own, so that what it holds is this test's only; idle for as long as the test wants. */
  const pool = (idleMs = 60_000, max = 8) => createIdleConnections({ idleMs, max });
  const said: Handler = (req, res) => res.end(`${req.method} ${req.url}`);

  test("two requests and a PUT to one origin under its pin: one TLS handshake, each answer with the certificate checked on it", async (t) => {
    const server = await serveHttps(t, said);
    const trust = { pin: server.sha256 };
    const answers = [
      await request({ ...base, url: `${server.url}/a`, trust }),
      await request({ ...base, url: `${server.url}/b`, trust }),
      await request({ ...base, url: `${server.url}/c`, trust, method: "PUT", body: "{}" }),
    ];
    assert.deepEqual(answers.map((a) => [a.body, a.certificate]), [["GET /a", server.sha256], ["GET /b", server.sha256], ["PUT /c", server.sha256]]);
    assert.equal(server.handshakes(), 1);
  });

  test("a PUT answered before its body is all sent (a server that answers at once) keeps its connection once the body is sent", async (t) => {
    // The server answers on the request's head; the body (more than the sockets' buffers hold) is still being sent.
    const server = await serveHttps(t, (req, res) => {
      res.end("stored");
      req.resume();
    });
    const connections = pool();
    const trust = { pin: server.sha256 };
    const put = await request({ ...base, url: server.url, trust, method: "PUT", body: "x".repeat(16 * 1024 * 1024), connections });
    assert.equal(put.body, "stored");
    // Kept once the body is all sent, or closed: whichever comes first.
    let closed = false;
    void server.closed(1).then(() => (closed = true));
    while (connections.size === 0 && !closed) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([connections.size, closed], [1, false]);
    assert.equal((await request({ ...base, url: server.url, trust, connections })).body, "stored");
    assert.equal(server.handshakes(), 1);
  });

  test("a connection checked under one trust carries no request of another: another pin is refused on a handshake of its own", async (t) => {
    const server = await serveHttps(t, said);
    const connections = pool();
    await request({ ...base, url: server.url, trust: { pin: server.sha256 }, connections });
    const error = await rejection(request({ ...base, url: server.url, trust: { pin: "0".repeat(64) }, method: "POST", body: "{}", connections }));
    assert.deepEqual([error.kind, error.presented], ["tls-mismatch", server.sha256]);
    assert.equal(connections.size, 1, "the pinned connection is still there, unused");
    await request({ ...base, url: server.url, trust: "any", connections });
    assert.deepEqual([connections.size, server.requests()], [2, 2]);
  });

  test("the server's certificate changed and the connection it was checked on closed: the next request's handshake is refused by the pin, nothing sent", async (t) => {
    const server = await serveHttps(t, said);
    const connections = pool();
    const trust = { pin: server.sha256 };
    await request({ ...base, url: server.url, trust, connections });
    const other = selfSigned();
    server.server.setSecureContext({ cert: other.certPem, key: other.keyPem });
    // The connection checked before the change still carries requests: the pin is a property of the connection.
    assert.equal((await request({ ...base, url: server.url, trust, connections })).certificate, server.sha256);
    server.server.closeAllConnections();
    await server.closed(1);
    const [requests, bytes] = [server.requests(), server.bytes()];
    const error = await rejection(request({ ...base, url: server.url, trust, method: "POST", body: "{}", connections }));
    assert.deepEqual([error.kind, error.presented], ["tls-mismatch", other.sha256]);
    await server.closed(2);
    assert.deepEqual([server.requests(), server.bytes()], [requests, bytes]);
  });

  test("an idle connection is closed after the idle time, by the client (the server would keep it)", async (t) => {
    const server = await serveHttps(t, said);
    server.server.keepAliveTimeout = 0;
    const connections = pool(50);
    await request({ ...base, url: server.url, trust: "any", connections });
    assert.equal(connections.size, 1);
    await server.closed(1);
    assert.equal(connections.size, 0);
  });

  test("a server that says it keeps an idle connection 1 s (Keep-Alive: timeout=1): not kept, the next request opens its own", async (t) => {
    const server = await serveHttps(t, said);
    server.server.keepAliveTimeout = 1_000;
    const connections = pool();
    await request({ ...base, url: server.url, trust: "any", connections });
    assert.equal(connections.size, 0);
    await request({ ...base, url: server.url, trust: "any", connections });
    assert.equal(server.handshakes(), 2);
  });

  test("at most `max` idle connections over every origin: the oldest closed first", async (t) => {
    const servers = [await serveHttps(t, said), await serveHttps(t, said), await serveHttps(t, said), await serveHttps(t, said)];
    const connections = pool(60_000, 2);
    for (const server of servers) await request({ ...base, url: server.url, trust: "any", connections });
    assert.equal(connections.size, 2);
    await servers[0]!.closed(1);
    await servers[1]!.closed(1);
    assert.deepEqual(servers.map((s) => s.open()), [0, 0, 1, 1]);
    await request({ ...base, url: servers[3]!.url, trust: "any", connections });
    assert.deepEqual(servers.map((s) => s.handshakes()), [1, 1, 1, 1]);
  });

  test("the server closed a kept connection as a request went out on it: a GET goes once more on a new connection, a POST never", async (t) => {
    const seen: string[] = [];
    // Each connection's first request is answered; a later one on the same connection is cut without an answer.
    const answered = new WeakSet<object>();
    const server = await serveHttps(t, (req, res) => {
      seen.push(req.method!);
      if (answered.has(req.socket)) return req.socket.destroy();
      answered.add(req.socket);
      res.end("ok");
    });
    const connections = pool();
    await request({ ...base, url: server.url, trust: "any", connections });
    assert.equal((await request({ ...base, url: server.url, trust: "any", connections })).body, "ok");
    assert.deepEqual([seen, server.handshakes()], [["GET", "GET", "GET"], 2]);
    const error = await rejection(request({ ...base, url: server.url, trust: "any", method: "POST", body: "{}", connections }));
    assert.equal(error.kind, "broken");
    await server.closed(2);
    assert.deepEqual([seen, server.handshakes()], [["GET", "GET", "GET", "POST"], 2]);
  });

  test("an event stream takes a kept connection; read to its end, it gives it back; left before its end, the connection is closed", async (t) => {
    const server = await serveHttps(t, (req, res) => {
      if (req.url === "/events") return void res.writeHead(200, { "content-type": "text/event-stream" }).end("data: 1\n\n");
      if (req.url === "/open") return void res.writeHead(200, { "content-type": "text/event-stream" }).write("data: 1\n\n");
      said(req, res);
    });
    const connections = pool();
    await request({ ...base, url: server.url, trust: "any", connections });
    const whole = await openStream({ ...base, url: `${server.url}/events`, trust: "any", idleMs: 5_000, connections });
    whole.resume();
    await once(whole, "end");
    while (connections.size === 0 && server.open() > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([connections.size, server.handshakes()], [1, 1]);
    const left = await openStream({ ...base, url: `${server.url}/open`, trust: "any", idleMs: 5_000, connections });
    await once(left, "data");
    left.destroy();
    await server.closed(1);
    assert.equal(connections.size, 0);
    await request({ ...base, url: server.url, trust: "any", connections });
    assert.equal(server.handshakes(), 2);
  });
});

describe("an answer Node's HTTP parser refuses (a node that lies, or another service on its port): malformed, named by the parser's code, at once", () => {
  const MALFORMED: Array<[string, string, string]> = [
    ["a header section over Node's limit", `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(maxHeaderSize)}\r\nContent-Length: 2\r\n\r\n{}`, "HPE_HEADER_OVERFLOW"],
    ["two different Content-Length headers", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "HPE_UNEXPECTED_CONTENT_LENGTH"],
    ["a Content-Length and a chunked body at once", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", "HPE_INVALID_TRANSFER_ENCODING"],
    ["an invalid status line", "HTTP/1.1 2x0 OK\r\n\r\n", "HPE_INVALID_STATUS"],
    ["no HTTP at all (another service's banner)", "SSH-2.0-OpenSSH_9.2\r\n", "HPE_INVALID_CONSTANT"],
    ["a control character in a header", "HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 2\r\n\r\n{}", "HPE_INVALID_HEADER_TOKEN"],
    ["a chunked body broken after its headers (a 200 already read)", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n", "HPE_INVALID_CHUNK_SIZE"],
  ];

  test("each by every way of asking (a GET, a POST, a download, an event stream read): malformed, its code said, and not nothingSent (the request went out)", { timeout: 60_000 }, async (t) => {
    for (const [what, bytes, code] of MALFORMED) {
      const server = await serveHttps(t, (req) => req.socket.end(bytes));
      const dir = await tempDir("stratum-download-");
      const read = async () => {
        const res = await openStream({ ...base, url: server.url, trust: "any", idleMs: 60_000 });
        for await (const _ of res);
      };
      const ways = [() => request({ ...base, url: server.url, trust: "any" }), () => requestJson({ ...base, url: server.url, trust: "any", method: "POST", body: "{}" }, 202, z.unknown()), () => download({ ...base, url: server.url, trust: "any" }, join(dir, "n.tar.gz")), read];
      for (const [i, ask] of ways.entries()) {
        const error = await rejection(ask());
        assert.equal(error.kind, "malformed", `${what}, way ${i}: ${error.message}`);
        assert.match(error.message, new RegExp(`^malformed HTTP \\(${code}: `), what);
        assert.equal(nothingSent(error), false, what);
      }
      assert.equal(server.requests(), ways.length, `${what}: each asked once, none sent again`);
      assert.deepEqual(await readdir(dir), [], `${what}: no file, no temp`);
    }
  });

  test("an event stream whose chunked body breaks after events were read: its reader hears malformed, not a connection cut", async (t) => {
    let breakIt = () => {};
    const server = await serveHttps(t, (req) => {
      req.socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n");
      breakIt = () => req.socket.end("zz\r\n");
    });
    const res = await openStream({ ...base, url: server.url, trust: "any", idleMs: 60_000 });
    assert.equal(String((await once(res, "data"))[0]), "data: 1\n\n");
    breakIt();
    const [error] = (await once(res, "error")) as [HttpClientError];
    assert.deepEqual([error.kind, error.message], ["malformed", "malformed HTTP (HPE_INVALID_CHUNK_SIZE: Invalid character in chunk size)"]);
  });

  test("the words: the parser's code and reason, and for a header section over the limit, the limit", async (t) => {
    const server = await serveHttps(t, (req) => req.socket.end(MALFORMED[0]![1]));
    const error = await rejection(request({ ...base, url: server.url, trust: "any" }));
    assert.equal(error.message, `malformed HTTP (HPE_HEADER_OVERFLOW: Header overflow, a header section over ${maxHeaderSize / 1024} KiB)`);
  });

  test("a GET on a kept connection answered so is not sent again (as one the server closed would be): the answer is the server's", async (t) => {
    const server = await serveHttps(t, (req, res) => (server.requests() === 1 ? res.end("ok") : req.socket.end(MALFORMED[1]![1])));
    const connections = createIdleConnections({ idleMs: 60_000, max: 8 });
    assert.equal((await request({ ...base, url: server.url, trust: "any", connections })).body, "ok");
    const error = await rejection(request({ ...base, url: server.url, trust: "any", connections }));
    assert.equal(error.kind, "malformed");
    assert.deepEqual([server.requests(), server.handshakes()], [2, 1]);
  });

  test("bytes past a whole answer (more than its Content-Length): the answer as its Content-Length frames it; the rest goes with its connection, never read as the next request's answer", async (t) => {
    const smuggled = 'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{"x":666}';
    const server = await serveHttps(t, (req, res) => (server.requests() === 1 ? req.socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=5\r\n\r\n{}${smuggled}`) : res.end('{"x":1}')));
    const connections = createIdleConnections({ idleMs: 60_000, max: 8 });
    assert.equal((await request({ ...base, url: server.url, trust: "any", connections })).body, "{}");
    assert.equal((await request({ ...base, url: server.url, trust: "any", connections })).body, '{"x":1}');
    assert.equal(server.handshakes(), 2, "the first connection was not kept");
  });
});
