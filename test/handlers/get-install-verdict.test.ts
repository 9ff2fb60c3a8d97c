import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import getVerdict from "../../handlers/get-install-verdict.ts";
import { inProcessApp } from "../helpers/app.ts";
import { finished, install, installRig, putDraft } from "../helpers/install-rig.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = getVerdict;
const PATH = "/v1/installer/install/verdict";

describe("GET /v1/installer/install/verdict", () => {
  test("200: the latest attempt's verdict, or ?attempt=N's", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    const verdict = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual(verdict, { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: verdict.message, next: "none" });
    assert.deepEqual(assertAnswers(route, 200, await installer.request(`${PATH}?attempt=1`)), verdict);
  });

  test("200: an unreachable readiness endpoint is a state, not a crash: READINESS_TIMEOUT naming UNREACHABLE", async (t) => {
    const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
    const installer = await installRig(t, { readiness, timeout: 1 });
    await readiness.close();
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    const verdict = assertAnswers(route, 200, await installer.request(PATH));
    assert.equal(verdict.code, "READINESS_TIMEOUT");
    assert.match(verdict.message, /UNREACHABLE/);
    const events = (await installer.request("/v1/installer/install/events?attempt=1")).json.events;
    assert.ok(events.some((e: any) => e.type === "readiness.poll" && e.data.state === "UNREACHABLE" && /ECONNREFUSED/.test(e.data.detail)));
  });

  test("400 INVALID_REQUEST for an attempt that is not a number from 1", async (t) => {
    const installer = await inProcessApp(t);
    for (const attempt of ["x", "0", "1.5"]) assertRouteProblem(route, await installer.request(`${PATH}?attempt=${attempt}`), 400, "INVALID_REQUEST", { what: attempt });
    // A parameter misspelt would answer for the latest attempt, or from the start, as if it were not there.
    assertRouteProblem(route, await installer.request(`${PATH}?attemp=2`), 400, "INVALID_REQUEST", { detail: /attemp/ });
  });

  test("404 NOT_FOUND for an unknown attempt, and for the latest before any attempt", async (t) => {
    const installer = await inProcessApp(t);
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=7`), 404, "NOT_FOUND");
    assertRouteProblem(route, await installer.request(PATH), 404, "NOT_FOUND");
  });

  test("409 INSTALL_RUNNING while the attempt still runs", async (t) => {
    const installer = await installRig(t, { scenario: "never", timeout: 3600 });
    await putDraft(installer);
    await install(installer);
    assertRouteProblem(route, await installer.request(PATH), 409, "INSTALL_RUNNING");
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=1`), 409, "INSTALL_RUNNING");
  });

  describeAuth(route, {
    path: PATH,
    breaks: (services) => {
      services.attempts.verdict = () => {
        throw new Error("boom");
      };
    },
  });
});
