import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { test } from "node:test";
import { CONNECTION_LIMITS, capConnections, connectionCap, lowLimitNotice, openFilesLimit, softOpenFilesLimit } from "../../cli/connections.ts";
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

test("the connections served at once: half of what the limit leaves once the files open at start and an install's have theirs, within bounds", () => {
  const { installFiles, filesPerConnection, most } = CONNECTION_LIMITS;
  assert.equal(connectionCap(2048, 30), Math.floor((2048 - 30 - installFiles) / filesPerConnection));
  assert.equal(connectionCap(65_536, 30), most, "memory bounds it too");
  assert.equal(connectionCap(Number.POSITIVE_INFINITY, 30), most);
  assert.equal(connectionCap(undefined, 0), Math.floor((1024 - installFiles) / filesPerConnection), "not known: most systems' soft limit");
});

// Under a low limit (ulimit -n 64, LimitNOFILE=64) 32 connections at least took the files the install needed: accept()
// then failed with EMFILE, which libuv drops in silence (no `connections refused`), and the attempt's event log, the
// store's writes and each stream's replay of the events failed with it (the verdict STATE_WRITE_FAILED under 40).
test("under a low open-files limit the connections served fit in what the files open at start and the install's own leave, a socket and an events file each; under 'least' the start says to raise the limit", () => {
  const { installFiles, filesPerConnection } = CONNECTION_LIMITS;
  assert.ok(filesPerConnection >= 2, "an event stream's replay holds a file beside its socket");
  assert.equal(connectionCap(64, 22), Math.floor((64 - 22 - installFiles) / filesPerConnection));
  assert.equal(connectionCap(1024, 22), Math.floor((1024 - 22 - installFiles) / filesPerConnection));
  assert.equal(connectionCap(40, 22), 1, "one at least: the console, the CLI");
  assert.equal(connectionCap(100_000, 22), CONNECTION_LIMITS.most);
  assert.equal(lowLimitNotice(64, connectionCap(64, 22)), `the open-files limit (64) leaves room for ${connectionCap(64, 22)} connections at once (32 wanted): raise it (LimitNOFILE= in the service's unit, ulimit -n in a shell)`);
  assert.equal(lowLimitNotice(1024, connectionCap(1024, 22)), undefined);
  assert.equal(lowLimitNotice(undefined, connectionCap(undefined, 22)), undefined);
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
