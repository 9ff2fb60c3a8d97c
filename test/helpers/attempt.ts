import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { inProcessApp, type InProcessApp } from "./app.ts";
import { VALID_DRAFT } from "./fixtures.ts";
import { waitFor } from "./installer.ts";

/** An attempt of a valid draft that runs (readiness polls a closed port for an hour). */
export async function startAttempt(installer: InProcessApp): Promise<void> {
  await installer.untilNoBlockers();
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
}

/** An app whose node is installed: one attempt succeeded against a loopback readiness server that says READY. */
export async function installedApp(t: TestContext): Promise<InProcessApp> {
  const readiness = await startReadinessServer({ port: 0, scenario: "ready", stageMs: 0 });
  t.after(() => readiness.close());
  const installer = await inProcessApp(t, { args: ["--readiness-url", readiness.url, "--readiness-interval", "0.05"] });
  await startAttempt(installer);
  const verdict = await waitFor("the verdict", async () => {
    const reply = await installer.request("/v1/installer/install/verdict");
    return reply.status === 200 ? reply.json : undefined;
  });
  assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
  return installer;
}
