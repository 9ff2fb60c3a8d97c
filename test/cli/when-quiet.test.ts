import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, mock, test } from "node:test";
import { whenQuiet } from "../../cli/when-quiet.ts";

/** A server that says "request" as a real one does; the clock is node:test's, moved by hand. */
function setUp(options = { quietMs: 1_000, latestMs: 30_000 }) {
  mock.timers.enable({ apis: ["setTimeout"] });
  const server = new EventEmitter();
  let runs = 0;
  whenQuiet(server, "request", options, () => void (runs += 1));
  return { server, runs: () => runs, tick: (ms: number) => mock.timers.tick(ms) };
}

describe("whenQuiet: work put off until the first burst of requests is over", () => {
  test("nothing before the first request, however long", (t) => {
    t.after(() => mock.timers.reset());
    const { runs, tick } = setUp();
    tick(120_000);
    assert.equal(runs(), 0);
  });

  test("once no request has begun for quietMs after the first; each request puts it off again", (t) => {
    t.after(() => mock.timers.reset());
    const { server, runs, tick } = setUp();
    server.emit("request");
    tick(999);
    server.emit("request");
    tick(999);
    assert.equal(runs(), 0, "a request 999 ms after the last: not quiet yet");
    tick(1);
    assert.equal(runs(), 1);
  });

  test("at the latest latestMs after the first request, whatever keeps coming; then once only", (t) => {
    t.after(() => mock.timers.reset());
    const { server, runs, tick } = setUp();
    for (let ms = 0; ms < 30_000; ms += 500) {
      server.emit("request");
      tick(500);
    }
    assert.equal(runs(), 1, "a steady poll every 500 ms does not put it off for ever");
    server.emit("request");
    tick(60_000);
    assert.equal(runs(), 1);
    assert.equal(server.listenerCount("request"), 0, "no listener left on the server");
  });
});
