import assert from "node:assert/strict";
import https from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";

interface Reply {
  status: number;
  body: { state?: string; checks?: { name: string; status: string; detail: string }[]; scenario?: string };
}

/** node:https rather than fetch: undici's fetch has no per-request way to accept a self-signed certificate. */
function request(url: string, method = "GET", body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, rejectUnauthorized: false, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const controlUrl = (readinessUrl: string) => new URL("/control/scenario", readinessUrl).href;

test("progress scenario moves from BOOTSTRAPPING through CEPH_BOOTSTRAP to READY", async (t) => {
  const server = await startReadinessServer({ stageMs: 100 });
  t.after(() => server.close());
  const states: string[] = [];
  for (let polls = 0; states.at(-1) !== "READY" && polls < 1000; polls++) {
    const { status, body } = await request(server.url);
    assert.equal(status, 200);
    if (body.state !== states.at(-1)) states.push(body.state ?? "");
    await sleep(10);
  }
  assert.deepEqual(states, ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY"]);
});

test("a poller slower than the stages still sees every stage, one a poll", async (t) => {
  const server = await startReadinessServer({ stageMs: 1 });
  t.after(() => server.close());
  const states: (string | undefined)[] = [];
  for (let polls = 0; polls < 4; polls++) {
    states.push((await request(server.url)).body.state);
    await sleep(5);
  }
  assert.deepEqual(states, ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY", "READY"]);
});

test("progress stages carry the documented checks", async (t) => {
  const server = await startReadinessServer({ stageMs: 60_000 });
  t.after(() => server.close());
  const { body } = await request(server.url);
  assert.deepEqual(body.checks?.map((c) => [c.name, c.status, c.detail]), [
    ["network", "ok", "management network reachable"],
    ["ceph", "pending", "mon quorum forming"],
    ["images", "pending", "pulling 2/12"],
  ]);
});

test("control endpoint switches scenario and restarts the progress clock", async (t) => {
  const server = await startReadinessServer({ scenario: "never", stageMs: 60_000 });
  t.after(() => server.close());
  assert.equal((await request(server.url)).body.state, "CEPH_BOOTSTRAP");

  assert.deepEqual(await request(controlUrl(server.url), "POST", { scenario: "ready" }), { status: 200, body: { scenario: "ready" } });
  assert.equal((await request(server.url)).body.state, "READY");

  server.setScenario("progress");
  assert.equal((await request(server.url)).body.state, "BOOTSTRAPPING");
  assert.equal(server.requests(), 3);
});

test("control endpoint refuses an unknown scenario", async (t) => {
  const server = await startReadinessServer({ scenario: "ready" });
  t.after(() => server.close());
  assert.equal((await request(controlUrl(server.url), "POST", { scenario: "sometimes" })).status, 400);
  assert.equal((await request(server.url)).body.state, "READY");
});

test("error scenario answers 503 with a JSON body", async (t) => {
  const server = await startReadinessServer({ scenario: "error" });
  t.after(() => server.close());
  const { status, body } = await request(server.url);
  assert.equal(status, 503);
  assert.equal(body.state, "UNAVAILABLE");
});

test("never scenario stays not ready with a pending check", async (t) => {
  const server = await startReadinessServer({ scenario: "never", stageMs: 1 });
  t.after(() => server.close());
  await request(server.url);
  await sleep(20);
  const { body } = await request(server.url);
  assert.equal(body.state, "CEPH_BOOTSTRAP");
  assert.ok(body.checks?.some((c) => c.status !== "ok"));
});
