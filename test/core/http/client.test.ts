import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { z } from "zod";
import { generateSelfSignedCert } from "../../../core/access/tls.ts";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { certificateSha256, download, HttpClientError, request, requestJson } from "../../../core/http/client.ts";
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
}

/** A real HTTPS server on 127.0.0.1 with a certificate of its own, counting what reaches it. */
async function serveHttps(t: TestContext, handler: Handler): Promise<Served> {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "client-test", dnsNames: [], ipAddresses: ["127.0.0.1"], now: new Date() });
  const sha256 = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
  let requests = 0;
  let bytes = 0;
  let closedCount = 0;
  const waiters: Array<() => void> = [];
  const server = createHttpsServer({ cert: certPem, key: keyPem }, (req, res) => {
    requests += 1;
    handler(req, res);
  });
  server.on("secureConnection", (socket: Socket) => socket.on("data", (chunk: Buffer) => (bytes += chunk.length)));
  // TCP, not TLS: a client that leaves right after its handshake may leave the server's unfinished.
  server.on("connection", (socket: Socket) =>
    socket.on("close", () => {
      closedCount += 1;
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const closed = async (n: number) => {
    while (closedCount < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, certPem, sha256, requests: () => requests, bytes: () => bytes, closed };
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
    const other = generateSelfSignedCert({ commonName: "other", dnsNames: [], ipAddresses: ["127.0.0.1"], now: new Date() }).certPem;
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

describe("one deadline for the whole exchange", () => {
  test("headers then a trickle: a timeout when it passes", async (t) => {
    const server = await serveHttps(t, trickle);
    const error = await rejection(request({ ...base, url: server.url, trust: "any", timeoutMs: 300 }));
    assert.deepEqual([error.kind, error.message], ["timeout", "no complete answer within 0.3 s"]);
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

  test("a closed port: unreachable with the reason", async () => {
    const server = createTcpServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await rejection(request({ ...base, url: `https://127.0.0.1:${port}`, trust: "any" }));
    assert.equal(error.kind, "unreachable");
    assert.match(error.message, /ECONNREFUSED/);
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

  test("the whole answer in the file, mode 0600, with its size and SHA-256; no temp file left", async (t) => {
    const server = await serveHttps(t, binary);
    const dir = await tempDir("stratum-download-");
    const path = join(dir, "n.tar.gz");
    assert.deepEqual(await download({ ...base, url: server.url, trust: { pin: server.sha256 } }, path), { size: BODY.length, sha256: sha256(BODY) });
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
      ["timeout", trickle, { timeoutMs: 300 }],
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
