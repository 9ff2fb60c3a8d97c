import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { warmUpWhenQuiet } from "../../cli/warm-up.ts";
import { inProcessApp } from "../helpers/app.ts";
import { waitFor } from "../helpers/installer.ts";

/** A quiet moment that comes at once: the timers' order, not the clock, decides what a test sees. */
const AT_ONCE = { quietMs: 0, from: "now" } as const;

const messages = (log: string[]) => log.map((line) => JSON.parse(line) as { level: string; message: string; error?: string });

describe("serve's warm-up, scheduled (cli/warm-up.ts)", () => {
  test("at its quiet moment it warms the API up and says so in one log line", async (t) => {
    const installer = await inProcessApp(t);
    const from = installer.log.length;
    warmUpWhenQuiet(new EventEmitter(), { app: async () => installer.app, code: installer.code, log: installer.services.log, stopping: () => false }, AT_ONCE);
    const line = await waitFor("the warm-up's line", async () => messages(installer.log.slice(from)).find((l) => l.message.startsWith("request paths")));
    assert.deepEqual([line.level, line.message], ["info", "request paths warmed up"]);
  });

  test("not once a stop was asked for", async (t) => {
    const installer = await inProcessApp(t);
    const from = installer.log.length;
    let built = 0;
    warmUpWhenQuiet(new EventEmitter(), { app: async () => (built++, installer.app), code: installer.code, log: installer.services.log, stopping: () => true }, AT_ONCE);
    await sleep(20); // a later timer: the warm-up's (0 ms) has fired by then
    assert.equal(built, 0);
    assert.deepEqual(messages(installer.log.slice(from)).filter((l) => l.message.startsWith("request paths")), []);
  });

  test("an API that could not be built: a warning with the reason, nothing thrown", async (t) => {
    const installer = await inProcessApp(t);
    const from = installer.log.length;
    warmUpWhenQuiet(new EventEmitter(), { app: () => Promise.reject(new Error("no routes")), code: installer.code, log: installer.services.log, stopping: () => false }, AT_ONCE);
    const line = await waitFor("the warm-up's line", async () => messages(installer.log.slice(from)).find((l) => l.message.startsWith("request paths")));
    assert.deepEqual([line.level, line.message, line.error], ["warn", "request paths not warmed up", "no routes"]);
  });

  test("a request of its answered other than 200 (here: a code the node does not have): a warning naming it", async (t) => {
    const installer = await inProcessApp(t);
    const from = installer.log.length;
    warmUpWhenQuiet(new EventEmitter(), { app: async () => installer.app, code: "AAAA-BBBB-CCCC", log: installer.services.log, stopping: () => false }, AT_ONCE);
    const line = await waitFor("the warm-up's line", async () => messages(installer.log.slice(from)).find((l) => l.message.startsWith("request paths")));
    assert.deepEqual([line.level, line.message, line.error], ["warn", "request paths not warmed up", "GET /v1/installer/status answered 401"]);
  });
});
