/** The baseline: bare Hono over HTTPS answering one JSON route; same cert type, same bundler. */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createServer } from "node:https";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";

const [certPath, keyPath] = process.argv.slice(2);
const app = new Hono();
app.get("/", (c) => c.json({ hello: "world" }));
serve(
  { fetch: app.fetch, hostname: "127.0.0.1", port: 0, createServer, serverOptions: { cert: readFileSync(certPath!), key: readFileSync(keyPath!) } },
  (info: AddressInfo) => process.stdout.write(`listening on 127.0.0.1:${info.port}\n`),
);
