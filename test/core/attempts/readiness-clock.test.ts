import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import type { NewEvent } from "../../../core/attempts/events.ts";
import type { StepContext } from "../../../core/attempts/steps/context.ts";
import { waitForReadiness } from "../../../core/attempts/steps/readiness.ts";
import { StepFailure } from "../../../core/attempts/verdict.ts";
import type { ReadinessObservation } from "../../../core/records.ts";

const T0 = Date.parse("2026-12-02T12:00:00Z");
/** The step's clock: it moves only when the cloud answers, a minute each time. */
let fake = T0;
let polls = 0;
const server = createServer((_req, res) => {
  polls++;
  fake += 60_000;
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }] }));
});
let url = "";
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/readiness`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test("the readiness wait times out by the injected clock: a ten-minute wait ends after ten one-minute polls, in no time", async () => {
  const events: Omit<NewEvent, "step">[] = [];
  const ctx: StepContext = {
    emit: (event) => events.push(event),
    backlogged: () => undefined,
    redactor: { text: (s) => s },
    now: () => new Date(fake),
    signal: new AbortController().signal,
  };
  const history: ReadinessObservation[] = [];
  const started = Date.now();
  const failure = await waitForReadiness(ctx, { url, timeoutSeconds: 600, intervalSeconds: 0.01 }, history).catch((err: unknown) => err);
  assert.ok(Date.now() - started < 5_000, "no real ten minutes pass");
  assert.ok(failure instanceof StepFailure);
  assert.equal(failure.code, "READINESS_TIMEOUT");
  assert.equal(failure.message, "The cloud was not READY within 600 s; last state CEPH_BOOTSTRAP; not ready: ceph (pending). Fix what is not ready, then recheck readiness.");
  assert.equal(polls, 10);
  assert.deepEqual(history, [{ time: new Date(T0 + 60_000).toISOString(), state: "CEPH_BOOTSTRAP", checks: [{ name: "ceph", status: "pending" }] }]);
  assert.deepEqual(
    events.filter((e) => e.type === "step.progress").map((e) => e.message),
    ["The cloud is taking longer than expected to become READY (300 s of 600 s); last: CEPH_BOOTSTRAP — not ready: ceph: pending"],
    "the halfway warning comes at five minutes by the same clock",
  );
});
