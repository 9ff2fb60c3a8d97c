import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { test } from "node:test";
import { CONNECTION_LIMITS, capConnections, connectionCap, openFilesLimit, softOpenFilesLimit } from "../../cli/connections.ts";
import { recordingLog } from "../helpers/services.ts";

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63412                63412                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

test("the open-files limit is the soft one of /proc/PID/limits; unlimited is no limit; a text without it says nothing", () => {
  assert.equal(softOpenFilesLimit(LIMITS), 1024);
  assert.equal(softOpenFilesLimit(LIMITS.replace("1024 ", "unlimited ")), Number.POSITIVE_INFINITY);
  assert.equal(softOpenFilesLimit("Limit  Soft Limit\nMax processes  10  10  processes\n"), undefined);
  if (process.platform === "linux") assert.equal(typeof openFilesLimit(), "number", "this process's own, read from /proc");
});

test("the connections served at once: what the limit leaves once the installer's own files have theirs, within bounds", () => {
  assert.equal(connectionCap(1024), 1024 - CONNECTION_LIMITS.reserved);
  assert.equal(connectionCap(65_536), CONNECTION_LIMITS.most, "memory bounds it too");
  assert.equal(connectionCap(Number.POSITIVE_INFINITY), CONNECTION_LIMITS.most);
  assert.equal(connectionCap(100), CONNECTION_LIMITS.least, "a console and a driver still get in");
  assert.equal(connectionCap(undefined), 1024 - CONNECTION_LIMITS.reserved, "not known: most systems' soft limit");
});

test("a connection past the cap is closed at once and logged, the first at once and the rest counted, not one line each", async (t) => {
  const { log, entries } = recordingLog();
  const held: Socket[] = [];
  const server = createServer((socket) => held.push(socket));
  capConnections(server, log, 2);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const clients: Socket[] = [];
  t.after(() => {
    for (const socket of [...clients, ...held]) socket.destroy();
    server.close();
  });
  const open = async () => {
    const socket = connect(port, "127.0.0.1").on("error", () => undefined);
    clients.push(socket);
    await once(socket, "connect");
    return socket;
  };
  await open();
  await open();
  while (held.length < 2) await once(server, "connection");
  const refused = await Promise.all(Array.from({ length: 5 }, open));
  await Promise.all(refused.map((socket) => (socket.closed ? undefined : once(socket, "close"))));
  assert.equal(held.length, 2, "only two were served");
  const lines = entries.filter((entry) => entry.message === "connections refused");
  assert.equal(lines.length, 1, "one line for the five, until a minute has passed");
  assert.equal(lines[0]!.refused, 1);
  assert.equal(lines[0]!.maxConnections, 2);
  assert.equal(server.maxConnections, 2);
});
