import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, mock, test } from "node:test";
import { type QuietOptions, whenQuiet } from "../../cli/when-quiet.ts";

/** A server that says "request" as a real one does; the clock is node:test's, moved by hand. */
function setUp(options: QuietOptions = { quietMs: 1_000, latestMs: 30_000 }) {
  mock.timers.enable({ apis: ["setTimeout"] });
  const server = new EventEmitter();
  let runs = 0;
  whenQuiet(server, "request", options, () => void (runs += 1));
  const tick = (ms: number) => mock.timers.tick(ms);
  /** A request every `everyMs` for `forMs`, as a steady poll sends them. */
  const poll = (everyMs: number, forMs: number) => {
    for (let ms = 0; ms < forMs; ms += everyMs) {
      server.emit("request");
      tick(everyMs);
    }
  };
  return { server, runs: () => runs, tick, poll };
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
    const { server, runs, tick, poll } = setUp();
    poll(500, 30_000);
    assert.equal(runs(), 1, "a steady poll every 500 ms does not put it off for ever");
    server.emit("request");
    tick(60_000);
    assert.equal(runs(), 1);
    assert.equal(server.listenerCount("request"), 0, "no listener left on the server");
  });
});

describe("whenQuiet from now: work for a quiet moment from the banner on (the warm-up)", () => {
  const setUpNow = () => setUp({ quietMs: 1_500, from: "now" });

  test("runs once quietMs from its call when no request came, and leaves no listener", (t) => {
    t.after(() => mock.timers.reset());
    const { server, runs, tick } = setUpNow();
    tick(1_499);
    assert.equal(runs(), 0);
    tick(1);
    assert.equal(runs(), 1);
    server.emit("request");
    tick(60_000);
    assert.equal(runs(), 1);
    assert.equal(server.listenerCount("request"), 0);
  });

  test("each request puts it off again; without latestMs a steady stream of them for ever", (t) => {
    t.after(() => mock.timers.reset());
    const { runs, tick, poll } = setUpNow();
    poll(1_000, 120_000);
    assert.equal(runs(), 0, "a request every second is never quiet for 1.5 s");
    tick(500);
    assert.equal(runs(), 1);
  });
});

test("its timers keep no process alive (Node lists only timers that do)", () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const before = timers();
  const server = new EventEmitter();
  whenQuiet(server, "other", { quietMs: 60_000, from: "now" }, () => undefined);
  whenQuiet(server, "request", { quietMs: 60_000, latestMs: 120_000 }, () => undefined);
  server.emit("request");
  assert.equal(timers(), before);
});
