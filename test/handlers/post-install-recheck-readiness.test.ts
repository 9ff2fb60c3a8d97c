import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { describe, test } from "node:test";
import recheckReadiness from "../../handlers/post-install-recheck-readiness.ts";
import { inProcessApp } from "../helpers/app.ts";
import { BODY_OVER_1_MIB, VALID_DRAFT } from "../helpers/fixtures.ts";
import { finished, install, installRig, putDraft } from "../helpers/install-rig.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { noSpace } from "../helpers/full-disk.ts";

const { route } = recheckReadiness;
const PATH = "/v1/installer/install/recheck-readiness";
const POST = { method: "POST" } as const;

describe("POST /v1/installer/install/recheck-readiness", () => {
  test("202 after a readiness timeout that names what is not ready: a readiness-only attempt that succeeds once READY, without firstboot", async (t) => {
    const installer = await installRig(t, { scenario: "never", timeout: 1.5 });
    await putDraft(installer);
    await install(installer);
    const verdict = await finished(installer, 1);
    assert.equal(verdict.code, "READINESS_TIMEOUT");
    assert.equal(verdict.step, "readiness");
    assert.equal(verdict.next, "recheckReadiness");
    assert.match(verdict.message, /CEPH_BOOTSTRAP/);
    assert.match(verdict.message, /not ready: .*ceph/);
    const events = (await installer.request("/v1/installer/install/events?attempt=1")).json.events;
    assert.ok(events.some((e: any) => e.level === "warn" && /taking longer than expected/.test(e.message)));

    installer.readiness.setScenario("ready");
    // Seed 001: "firstboot is not run, node.yaml is not written, and the draft is not touched".
    const nodeYamlBefore = { text: await readFile(installer.nodeYaml, "utf8"), mtimeMs: (await stat(installer.nodeYaml)).mtimeMs, ino: (await stat(installer.nodeYaml)).ino };
    const draftBefore = await installer.request("/v1/installer/config");
    const recheck = assertAnswers(route, 202, await installer.request(PATH, POST));
    assert.deepEqual(recheck, { attempt: 2, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=2" });
    const second = await finished(installer, 2);
    assert.deepEqual({ ...second, message: "" }, { attempt: 2, kind: "recheck-readiness", outcome: "succeeded", step: "readiness", code: null, message: "", next: "none" });
    const report = (await installer.request("/v1/installer/install/report?attempt=2")).json;
    assert.deepEqual(report.steps.map((s: any) => s.step), ["readiness"]);
    assert.equal(await installer.firstbootRuns(), 1, "a recheck never re-runs firstboot");
    assert.deepEqual({ text: await readFile(installer.nodeYaml, "utf8"), mtimeMs: (await stat(installer.nodeYaml)).mtimeMs, ino: (await stat(installer.nodeYaml)).ino }, nodeYamlBefore, "node.yaml is not written");
    const draftAfter = await installer.request("/v1/installer/config");
    assert.deepEqual([draftAfter.headers.etag, draftAfter.json], [draftBefore.headers.etag, draftBefore.json], "the draft is not touched");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "done");
  });

  test("409 INSTALL_BLOCKED (INSTALLER_STOPPING) once the installer is stopping: a recheck still answered then starts no attempt (it was recorded running and left for the next start to call interrupted, after a 202)", async (t) => {
    const installer = await installRig(t, { scenario: "never", timeout: 1.5 });
    await putDraft(installer);
    await install(installer);
    assert.equal((await finished(installer, 1)).next, "recheckReadiness");
    await installer.services.stop();
    const body = assertRouteProblem(route, await installer.request(PATH, POST), 409, "INSTALL_BLOCKED");
    assert.deepEqual(body.blockers.map((b: any) => b.code), ["INSTALLER_STOPPING"]);
    assert.match(body.blockers[0].detail, /^The installer is stopping \(a restart, or a stop\): /);
    const status = (await installer.request("/v1/installer/status")).json;
    assert.equal(status.attempt, 1, "no attempt 2 recorded");
  });

  test("the readiness wait's deadline, --readiness-timeout after its step started: in its step.started event and the report's step; the step ends there. The report says where the installed cloud and node answer, a recheck's as its install's", async (t) => {
    const installer = await installRig(t, { scenario: "never", timeout: 1.5 });
    await putDraft(installer);
    await install(installer);
    await finished(installer, 1);
    const events = (await installer.request("/v1/installer/install/events?attempt=1")).json.events;
    const started = events.find((e: any) => e.type === "step.started" && e.step === "readiness");
    assert.deepEqual(events.filter((e: any) => e.type === "step.started" && e.data).map((e: any) => e.step), ["readiness"], "only the readiness wait has a deadline");
    const report = (await installer.request("/v1/installer/install/report?attempt=1")).json;
    const step = report.steps.find((s: any) => s.step === "readiness");
    assert.equal(step.deadline, started.data.deadline);
    assert.equal(Date.parse(step.deadline) - Date.parse(step.startedAt), 1500);
    const ended = Date.parse(step.finishedAt) - Date.parse(step.deadline);
    assert.ok(ended >= 0, `the step ended ${ended} ms before its deadline`);

    const url = new URL(installer.readiness.url);
    const endpoints = { cloudApi: `${url.protocol}//10.20.0.11:${url.port}`, ssh: "10.20.0.11" };
    assert.deepEqual(report.endpoints, endpoints);
    await putDraft(installer, { ...VALID_DRAFT, network: { ...VALID_DRAFT.network, address: "10.20.0.12/24" } });
    assertAnswers(route, 202, await installer.request(PATH, POST));
    const recheck = (await installer.request("/v1/installer/install/report?attempt=2")).json;
    assert.deepEqual(recheck.endpoints, endpoints, "a recheck waits for what the install installed, whatever the draft says since");
    assert.deepEqual([recheck.config, recheck.payloadVersion], [report.config, report.payloadVersion], "and its report records what the install installed, not the draft changed since");
    const said = (await installer.request("/v1/installer/install/events?attempt=2")).json.events;
    assert.ok(said.some((e: any) => e.level === "warn" && /draft changed since attempt 1 installed it/.test(e.message)), JSON.stringify(said.map((e: any) => e.message)));
  });

  test("409 RECHECK_NOT_APPLICABLE before any attempt and after one that failed elsewhere than readiness", async (t) => {
    const installer = await installRig(t, { firstboot: "#!/bin/sh\nexit 3\n" });
    assertRouteProblem(route, await installer.request(PATH, POST), 409, "RECHECK_NOT_APPLICABLE");
    await putDraft(installer);
    await install(installer);
    assert.equal((await finished(installer, 1)).code, "FIRSTBOOT_FAILED");
    assertRouteProblem(route, await installer.request(PATH, POST), 409, "RECHECK_NOT_APPLICABLE");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 1);
  });

  test("409 INSTALL_RUNNING while an attempt runs; 409 RECHECK_NOT_APPLICABLE after one succeeded (the endpoint's page names no other code)", async (t) => {
    const installer = await installRig(t, { scenario: "never", timeout: 1.5 });
    await putDraft(installer);
    await install(installer);
    assertRouteProblem(route, await installer.request(PATH, POST), 409, "INSTALL_RUNNING");
    await finished(installer, 1);
    installer.readiness.setScenario("ready");
    assertAnswers(route, 202, await installer.request(PATH, POST));
    await finished(installer, 2);
    const after = await installer.request(PATH, POST);
    assertRouteProblem(route, after, 409, "RECHECK_NOT_APPLICABLE");
    assert.equal(after.json.detail, "Attempt 2 succeeded: this node is installed and its cloud reported READY, so there is no readiness to recheck.");
  });

  test("413 BODY_TOO_LARGE for a body over the 1 MiB limit (the operation takes none): declared in its responses; nothing starts", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request(PATH, { method: "POST", body: BODY_OVER_1_MIB });
    assertRouteProblem(route, reply, 413, "BODY_TOO_LARGE");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
  });

  test("507 INSUFFICIENT_STORAGE when the state dir refuses the attempt's record", async (t) => {
    const installer = await inProcessApp(t);
    installer.services.attempts.begin = async () => {
      throw noSpace(installer.stateDir);
    };
    assertRouteProblem(route, await installer.request(PATH, POST), 507, "INSUFFICIENT_STORAGE");
  });

  describeAuth(route, {
    path: PATH, request: POST,
    breaks: (services) => {
      services.attempts.begin = async () => {
        throw new Error("boom");
      };
    },
  });
});
