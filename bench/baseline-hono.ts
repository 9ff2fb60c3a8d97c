/**
 * The baseline: bare Hono over HTTPS answering one JSON route; same cert type, same bundler.
 * With a reply file (`--dressed FILE`, a JSON {headers, body} taken from the installer's own
 * /status) it answers with those same bytes instead: what the reply alone costs, without the
 * installer's code.
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createServer } from "node:https";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { ServerResponse } from "node:http";

const [certPath, keyPath, flag, replyPath] = process.argv.slice(2);
const app = new Hono<{ Bindings: { outgoing: ServerResponse } }>();
if (flag === "--dressed") {
  const reply = JSON.parse(readFileSync(replyPath!, "utf8")) as { headers: [string, string][]; body: unknown };
  app.get("/", (c) => {
    for (const [name, value] of reply.headers) c.env.outgoing.setHeader(name, value);
    return c.json(reply.body);
  });
} else {
  app.get("/", (c) => c.json({ hello: "world" }));
}
serve(
  { fetch: app.fetch, hostname: "127.0.0.1", port: 0, createServer, serverOptions: { cert: readFileSync(certPath!), key: readFileSync(keyPath!) } },
  (info: AddressInfo) => process.stdout.write(`listening on 127.0.0.1:${info.port}\n`),
);
