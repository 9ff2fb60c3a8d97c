import assert from "node:assert/strict";
import { test } from "node:test";
import getHealthz from "../../handlers/get-healthz.ts";
import { inProcessApp } from "../helpers/app.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = getHealthz;

test("GET /healthz: 200 with the version, without a code, with a wrong one, and from a locked-out address", async (t) => {
  const installer = await inProcessApp(t);
  const healthy = { ok: true, version: "0.0.0-test" };
  assert.deepEqual(assertAnswers(route, 200, await installer.request("/healthz", { code: null })), healthy);
  assert.deepEqual(assertAnswers(route, 200, await installer.request("/healthz", { code: "AAAA-BBBB-CCCC" })), healthy);
  for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}`, from: "127.0.0.7" });
  assert.equal((await installer.request("/v1/installer/status", { from: "127.0.0.7" })).status, 429);
  assert.deepEqual(assertAnswers(route, 200, await installer.request("/healthz", { from: "127.0.0.7" })), healthy);
});

test("GET /healthz: 500 INTERNAL when the service cannot say its version", async (t) => {
  const installer = await inProcessApp(t);
  Object.defineProperty(installer.services, "version", {
    get() {
      throw new Error("boom");
    },
  });
  assertRouteProblem(route, await installer.request("/healthz", { code: null }), 500, "INTERNAL");
});
