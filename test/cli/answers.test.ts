import assert from "node:assert/strict";
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent, createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { test, type TestContext } from "node:test";
import { connectionsOf, stopTakingRequests } from "../../cli/answers.ts";
import { generateSelfSignedCert } from "../../core/access/tls.ts";

const pair = generateSelfSignedCert({ commonName: "answers.test", dnsNames: [], ipAddresses: ["127.0.0.1"] });

/** A real HTTPS server on loopback whose handler the test gives; its port. */
async function serve(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number; stop: () => Promise<number> }> {
  const server = createServer({ cert: pair.certPem, key: pair.keyPem }, handler);
  const connections = connectionsOf(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.closeAllConnections());
  return { server, port: (server.address() as AddressInfo).port, stop: () => stopTakingRequests(server, connections)() };
}

test("a stop lets an answer whose end is still queued for a client that is not reading go out whole: its connection is closed once the answer went out, not while it waits", async (t) => {
  const BIG = 8 * 1024 * 1024;
  let ended!: () => void;
  const end = new Promise<void>((resolve) => (ended = resolve));
  const { port, stop } = await serve(t, (_req, res) => {
    res.write("x".repeat(BIG));
    res.end(": installer stopping\n\n");
    ended();
  });
  const req = request({ host: "127.0.0.1", port, path: "/", rejectUnauthorized: false, agent: false });
  req.end();
  const [res] = (await once(req, "response")) as [IncomingMessage];
  res.pause();
  // The answer is ended in the server (res.end called) with most of it queued: the client has read nothing yet.
  await end;
  const waited = stop();
  let body = 0;
  let tail = "";
  res.on("data", (chunk: Buffer) => {
    body += chunk.length;
    tail = (tail + chunk.toString("latin1")).slice(-64);
  });
  const read = new Promise<string>((resolve) => {
    res.on("end", () => resolve("end"));
    res.on("aborted", () => resolve("aborted"));
    res.on("error", () => resolve("error"));
  });
  // Read only once the stop had its chance to close the connection (it closed idle ones at once).
  await new Promise((resolve) => setImmediate(resolve));
  res.resume();
  assert.equal(await read, "end");
  assert.equal(body, BIG + ": installer stopping\n\n".length);
  assert.match(tail, /: installer stopping\n\n$/);
  assert.equal(await waited, 0, "nothing had to be cut");
});

test("a request on a connection kept alive during a stop is answered with Connection: close, and the connection goes once its answer went out", async (t) => {
  let hold: (() => void) | undefined;
  const { port, stop } = await serve(t, (req, res) => {
    const answer = () => res.end(`answered ${req.url}`);
    if (req.url === "/slow") hold = answer;
    else answer();
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  t.after(() => agent.destroy());
  const get = (path: string) =>
    new Promise<{ status: number; connection: string | undefined; body: string; socket: unknown }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body, socket: req.socket }));
      });
      req.on("error", reject);
      req.end();
    });
  const first = await get("/first");
  assert.equal(first.connection, "keep-alive");
  // A request under way when the stop comes, on the connection the agent keeps.
  const slow = get("/slow");
  while (!hold) await new Promise((resolve) => setImmediate(resolve));
  const waited = stop();
  hold();
  const answered = await slow;
  assert.equal(answered.body, "answered /slow");
  assert.equal(answered.socket, first.socket, "the same connection");
  assert.equal(await waited, 0);
  await assert.rejects(get("/after"), "the server took no request after its connections went");
});
