import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { after, before, test } from "node:test";
import type { NewEvent } from "../../../core/attempts/events.ts";
import type { StepContext } from "../../../core/attempts/steps/context.ts";
import { READINESS_CAPS, notReadyChecks, pollReadiness, waitForReadiness } from "../../../core/attempts/steps/readiness.ts";
import type { ReadinessObservation } from "../../../core/state/records.ts";
import { StepFailure } from "../../../core/attempts/verdict.ts";

const json = (body: string) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(body);
const trickle = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.flushHeaders();
  const timer = setInterval(() => res.write(" "), 100);
  res.on("close", () => clearInterval(timer));
};
const silent = () => undefined;

/** A plain-HTTP cloud on loopback whose nth request (from 0) is answered by `handler(n)`. */
let handler: (n: number) => (req: IncomingMessage, res: ServerResponse) => void = () => silent;
let requests = 0;
const server = createServer((req, res) => handler(requests++)(req, res));
let url = "";
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/readiness`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});
const serve = (answer: typeof handler) => {
  requests = 0;
  handler = answer;
};

const never = new AbortController().signal;

test("a poll has one deadline for the whole request: no headers, or headers and a trickle, is UNREACHABLE when it passes", async () => {
  for (const answer of [silent, trickle]) {
    serve(() => answer);
    assert.deepEqual(await pollReadiness(url, never, 300), { state: "UNREACHABLE", detail: "no complete answer within 0.3 s" });
  }
});

test("the body limit is 1 MiB: an answer under it is read, one over it is UNREACHABLE", async () => {
  // Two bytes a character, so that characters are cut between chunks.
  const answer = (size: number) => JSON.stringify({ state: "BOOTSTRAPPING", detail: "é".repeat(size / 2) });
  serve(() => json(answer(1000 * 1000)));
  assert.deepEqual(await pollReadiness(url, never, 5_000), { state: "BOOTSTRAPPING", detail: `${"é".repeat(1024)} … [cut 974.6 KiB]` });
  serve(() => json(answer(1024 * 1024)));
  assert.deepEqual(await pollReadiness(url, never, 5_000), { state: "UNREACHABLE", detail: "the answer is over 1 MiB" });
});

test("what a cloud says is kept capped: its state, detail and checks (each field, and how many), saying what was cut", async () => {
  const checks = Array.from({ length: 40 }, (_, i) => ({ name: `n${i}`.padEnd(300, "n"), status: "pending".padEnd(100, "!"), detail: "d".repeat(5000) }));
  serve(() => json(JSON.stringify({ state: "S".repeat(100), detail: "x".repeat(10_000), checks })));
  const seen = await pollReadiness(url, never, 5_000);
  assert.equal(seen.state, `${"S".repeat(READINESS_CAPS.stateBytes)} … [cut 36 bytes]`);
  assert.equal(seen.detail, `${"x".repeat(READINESS_CAPS.detailBytes)} … [cut 7.8 KiB]; 8 more checks not kept, 8 of them not ready`);
  assert.equal(seen.checks!.length, READINESS_CAPS.checks);
  assert.deepEqual(seen.checks![0], { name: `${"n0".padEnd(READINESS_CAPS.checkNameBytes, "n")} … [cut 172 bytes]`, status: `${"pending".padEnd(READINESS_CAPS.checkStatusBytes, "!")} … [cut 36 bytes]`, detail: `${"d".repeat(READINESS_CAPS.checkDetailBytes)} … [cut 4.4 KiB]` });
  // Checks alone past the most kept: the detail says so.
  serve(() => json(JSON.stringify({ state: "BOOTSTRAPPING", checks: checks.map(() => ({ name: "x", status: "ok" })) })));
  assert.equal((await pollReadiness(url, never, 5_000)).detail, "8 more checks not kept, all ready");
  // The checks not ready are kept first, wherever the cloud lists them: the verdict names them.
  const ready = Array.from({ length: 40 }, (_, i) => ({ name: `c${i}`, status: "ok" }));
  serve(() => json(JSON.stringify({ state: "BOOTSTRAPPING", checks: [...ready, { name: "ceph", status: "HEALTH_ERR", detail: "osd down" }] })));
  const late = await pollReadiness(url, never, 5_000);
  assert.equal(late.checks!.length, READINESS_CAPS.checks);
  assert.deepEqual(notReadyChecks(late), [{ name: "ceph", status: "HEALTH_ERR", detail: "osd down" }]);
  assert.deepEqual(late.checks!.slice(0, 2), [ready[0], ready[1]], "in the cloud's order");
  assert.equal(late.detail, "9 more checks not kept, all ready");
  // What fits is kept as it came.
  serve(() => json(JSON.stringify({ state: "BOOTSTRAPPING", detail: "etcd: 2 of 3", checks: [{ name: "etcd", status: "pending", detail: "2 of 3" }] })));
  assert.deepEqual(await pollReadiness(url, never, 5_000), { state: "BOOTSTRAPPING", detail: "etcd: 2 of 3", checks: [{ name: "etcd", status: "pending", detail: "2 of 3" }] });
});

test("a poll ends when the step's signal aborts", async () => {
  serve(() => trickle);
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 100);
  assert.equal((await pollReadiness(url, stop.signal, 60_000)).state, "UNREACHABLE");
});

function context(): StepContext {
  return { emit: () => undefined, backlogged: () => undefined, redactor: { text: (s) => s }, now: () => new Date(), signal: never, succeeded: async () => undefined };
}

test("the wait ends at its deadline even mid-poll, naming the last state the cloud gave, not the poll it cut short", async () => {
  serve((n) => (n === 0 ? json(JSON.stringify({ state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }] })) : trickle));
  const history: ReadinessObservation[] = [];
  const failure = await waitForReadiness(context(), { url, timeoutSeconds: 1.5, intervalSeconds: 0.05 }, history).catch((err: unknown) => err);
  assert.ok(failure instanceof StepFailure);
  assert.equal(failure.code, "READINESS_TIMEOUT");
  assert.match(failure.message, /last state CEPH_BOOTSTRAP; not ready: ceph \(pending\)/);
  assert.deepEqual(history.map((o) => o.state), ["CEPH_BOOTSTRAP"]);
});

test("a wait shorter than one poll's deadline records the poll as UNREACHABLE and ends", async () => {
  serve(() => trickle);
  const history: ReadinessObservation[] = [];
  const failure = await waitForReadiness(context(), { url, timeoutSeconds: 1, intervalSeconds: 0.05 }, history).catch((err: unknown) => err);
  assert.ok(failure instanceof StepFailure);
  assert.match(failure.message, /^The cloud was not READY within 1 s; last state UNREACHABLE \(no complete answer within 1 s\)/);
  assert.deepEqual(history.map((o) => [o.state, o.detail]), [["UNREACHABLE", "no complete answer within 1 s"]]);
});

test("a wait whose end passed before its first poll (the step's own writes were that slow) still looks once: its verdict names what the cloud said", async () => {
  serve(() => json(JSON.stringify({ state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }] })));
  const history: ReadinessObservation[] = [];
  const deadline = performance.now() - 1;
  const failure = await waitForReadiness(context(), { url, timeoutSeconds: 1, intervalSeconds: 0.05, deadline }, history).catch((err: unknown) => err);
  assert.ok(failure instanceof StepFailure);
  assert.match(failure.message, /^The cloud was not READY within 1 s; last state CEPH_BOOTSTRAP; not ready: ceph \(pending\)/);
  assert.equal(requests, 1, "one look, no more");
});

test("every change of state or of a check is a readiness.poll event, and a poll that says what the last one said is none (SPEC §6)", async () => {
  const answers = [
    { state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }, { name: "images", status: "pending", detail: "pulling 7/12" }] },
    { state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }, { name: "images", status: "pending", detail: "pulling 7/12" }] },
    { state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }, { name: "images", status: "pending", detail: "pulling 9/12" }] },
    { state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "ok" }, { name: "images", status: "pending", detail: "pulling 9/12" }] },
    { state: "READY" },
  ];
  serve((n) => json(JSON.stringify(answers[Math.min(n, answers.length - 1)])));
  const events: Omit<NewEvent, "step">[] = [];
  const history: ReadinessObservation[] = [];
  await waitForReadiness({ ...context(), emit: (event) => events.push(event) }, { url, timeoutSeconds: 60, intervalSeconds: 0.01 }, history);
  const polls = events.filter((e) => e.type === "readiness.poll");
  assert.deepEqual(polls.map((e) => e.data), [answers[0], answers[2], answers[3], answers[4]]);
  assert.deepEqual(history.map(({ time: _, ...o }) => o), [answers[0], answers[2], answers[3], answers[4]]);
});

test("…and a cloud READY by then is READY", async () => {
  serve(() => json(JSON.stringify({ state: "READY" })));
  const history: ReadinessObservation[] = [];
  await waitForReadiness(context(), { url, timeoutSeconds: 1, intervalSeconds: 0.05, deadline: performance.now() - 1 }, history);
  assert.deepEqual(history.map((o) => o.state), ["READY"]);
});

/**
 * A ten-minute wait on injected clocks: the step's monotonic clock moves only when the cloud answers, a minute each
 * time; the wall clock moves with it, and `stepAfter` (ms) is added to it at the second answer, as an NTP client's
 * first sync steps a fresh node's clock (a dead RTC battery: years).
 */
async function tenMinuteWait(stepAfter = 0) {
  const T0 = Date.parse("2026-12-02T12:00:00Z");
  let elapsed = 0;
  let wall = T0;
  serve(() => (req, res) => {
    elapsed += 60_000;
    wall += 60_000 + (requests === 2 ? stepAfter : 0);
    json(JSON.stringify({ state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }] }))(req, res);
  });
  const events: Omit<NewEvent, "step">[] = [];
  const ctx: StepContext = {
    emit: (event) => events.push(event),
    backlogged: () => undefined,
    redactor: { text: (s) => s },
    now: () => new Date(wall),
    monotonic: () => elapsed,
    signal: new AbortController().signal,
    succeeded: async () => undefined,
  };
  const history: ReadinessObservation[] = [];
  const failure = await waitForReadiness(ctx, { url, timeoutSeconds: 600, intervalSeconds: 0.01 }, history).catch((err: unknown) => err);
  assert.ok(failure instanceof StepFailure);
  assert.equal(failure.code, "READINESS_TIMEOUT");
  assert.equal(failure.message, "The cloud was not READY within 600 s; last state CEPH_BOOTSTRAP; not ready: ceph (pending). Fix what is not ready, then recheck readiness.");
  assert.equal(requests, 10);
  assert.deepEqual(history, [{ time: new Date(T0 + 60_000).toISOString(), state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }] }]);
  assert.deepEqual(
    events.filter((e) => e.type === "step.progress").map((e) => e.message),
    ["The cloud is taking longer than expected to become READY (300 s of 600 s); last: CEPH_BOOTSTRAP — not ready: ceph: pending"],
    "the halfway warning comes at five minutes by the same clock",
  );
}

// A real ten-minute wait would fail at the deadline, which only bounds that.
test("the readiness wait times out by the injected clock: a ten-minute wait ends after ten one-minute polls, in no time", { timeout: 60_000 }, () => tenMinuteWait());

test("a wall clock stepped during the wait (NTP's first sync on a node whose RTC was years behind, or hours ahead) neither ends it early nor makes it longer", { timeout: 60_000 }, async () => {
  await tenMinuteWait(26 * 365 * 24 * 3600 * 1000);
  await tenMinuteWait(-9 * 3600 * 1000);
});
