import assert from "node:assert/strict";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import postInstall from "../../handlers/post-install.ts";
import { inProcessApp } from "../helpers/app.ts";
import { BODY_OVER_1_MIB, VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { finished, install, installRig, putDraft, readSse } from "../helpers/install-rig.ts";
import { waitFor } from "../helpers/installer.ts";
import { assertProblem } from "../helpers/problem.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { noSpace } from "../helpers/full-disk.ts";

const { route } = postInstall;
const POST = { method: "POST" } as const;

const SECRET_DRAFT = {
  ...VALID_DRAFT,
  cluster: { joinToken: "jt-SECRET-4711-token" },
  admin: { ...VALID_DRAFT.admin, passwordHash: "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0" },
};

describe("POST /v1/installer/install", () => {
  test("202: a whole install, events in order over SSE, verdict, report, node.yaml 0600, phase done, then 409 ALREADY_INSTALLED", async (t) => {
    const installer = await installRig(t, { scenario: "progress" });
    await putDraft(installer, SECRET_DRAFT);
    const started = assertAnswers(route, 202, await installer.request("/v1/installer/install", POST));
    assert.deepEqual(started, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
    const stream = await readSse(installer, started.eventsUrl);
    assert.equal(stream.status, 200);
    assert.match(stream.contentType, /^text\/event-stream/);
    const events = stream.messages.map((m) => JSON.parse(m.data));
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "seq is 1, 2, 3 … with no gap");
    assert.deepEqual(stream.messages.map((m) => Number(m.id)), events.map((e) => e.seq), "SSE id = seq");
    // The steps' order is the runner's rule (test/core/attempts/runner.test.ts); here: the stream carries the attempt's events to its end.
    assert.deepEqual(events, (await installer.request(started.eventsUrl)).json.events, "the stream carries the attempt's recorded events");
    assert.equal(events.at(-1).type, "attempt.finished");
    const polls = events.filter((e) => e.type === "readiness.poll").map((e) => e.data.state);
    assert.deepEqual(polls, ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY"], "every change of state is an event");
    const logs = events.filter((e) => e.type === "step.log");
    assert.ok(logs.some((e) => e.level === "warn" && e.message === "warning: clock not synced yet" && e.data.stream === "stderr"));
    assert.ok(logs.some((e) => e.message === "firstboot: done"));

    const verdict = await installer.request("/v1/installer/install/verdict");
    assert.deepEqual(verdict.json, { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: verdict.json.message, next: "none" });

    const status = (await installer.request("/v1/installer/status")).json;
    assert.equal(status.phase, "done");
    assert.equal(status.attempt, 1);
    assert.ok(status.startedAt && status.finishedAt);
    assert.equal(status.step, undefined);

    const written = await readFile(installer.nodeYaml, "utf8");
    assert.equal((await stat(installer.nodeYaml)).mode & 0o777, 0o600);
    assert.equal(written, (await installer.request("/v1/installer/config/node.yaml")).text);
    assert.match(written, /join_token: "jt-SECRET-4711-token"/, "the node gets its secrets");

    const report = await installer.request("/v1/installer/install/report");
    assert.equal(report.status, 200);
    assert.deepEqual(report.json.steps.map((s: any) => [s.step, s.state]), [["preflight", "succeeded"], ["write-config", "succeeded"], ["firstboot", "succeeded"], ["readiness", "succeeded"]]);
    assert.ok(report.json.steps.every((s: any) => s.startedAt && s.finishedAt));
    assert.equal(report.json.verdict.outcome, "succeeded");
    assert.equal(report.json.host.hostname, "node-01");
    assert.equal(report.json.config.config.cluster.joinToken, "[redacted]");
    assert.equal(report.json.config.config.admin.passwordHash, "[redacted]");
    assert.ok(report.json.firstbootTail.includes("firstboot: done"));
    assert.deepEqual(report.json.readinessHistory.map((r: any) => r.state), ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY"]);
    assert.ok("payloadVersion" in report.json);

    const everything = JSON.stringify(events) + report.text + verdict.text + installer.log.join("\n");
    assert.doesNotMatch(everything, /jt-SECRET-4711-token/);
    assert.doesNotMatch(everything, /hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDf/);
    assert.doesNotMatch(everything, new RegExp(installer.code));

    assertRouteProblem(route, await installer.request("/v1/installer/install", POST), 409, "ALREADY_INSTALLED");
    assertProblem(await installer.request("/v1/installer/install/recheck-readiness", POST), 409, "RECHECK_NOT_APPLICABLE");
    assertProblem(await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-02" } }), 409, "ALREADY_INSTALLED");

    const attempts = await installer.request("/v1/installer/install/attempts");
    assert.deepEqual(attempts.json.attempts.map((a: any) => [a.attempt, a.kind, a.state, a.startedBy]), [[1, "install", "succeeded", "person"]]);
  });

  test("202 after a failed firstboot: exit code and tail in the verdict, next retryInstall; a retry after the fix succeeds as attempt 2", async (t) => {
    const installer = await installRig(t);
    await writeFile(join(installer.folder, "FAIL"), "");
    await putDraft(installer);
    await install(installer);
    const verdict = await finished(installer, 1);
    assert.equal(verdict.outcome, "failed");
    assert.equal(verdict.code, "FIRSTBOOT_FAILED");
    assert.equal(verdict.step, "firstboot");
    assert.equal(verdict.next, "retryInstall");
    assert.match(verdict.message, /exited with code 4/);
    assert.match(verdict.message, /could not bring up eno1/);
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "failed");
    assertProblem(await installer.request("/v1/installer/install/recheck-readiness", POST), 409, "RECHECK_NOT_APPLICABLE");

    await rm(join(installer.folder, "FAIL"));
    const retry = assertAnswers(route, 202, await installer.request("/v1/installer/install", POST));
    assert.deepEqual(retry, { attempt: 2, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=2" });
    assert.equal((await finished(installer, 2)).outcome, "succeeded");
    assert.equal(await installer.firstbootRuns(), 2);
    assert.equal((await installer.request("/v1/installer/install/verdict?attempt=1")).json.code, "FIRSTBOOT_FAILED", "earlier verdicts stay readable");
  });

  test("422 INVALID_CONFIG with the field errors for a draft that does not validate; no attempt starts", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    await installer.request("/v1/installer/config", { method: "PUT", body: { mode: "single-node" } });
    const body = assertRouteProblem(route, await installer.request("/v1/installer/install", POST), 422, "INVALID_CONFIG");
    assert.ok(body.errors.some((e: any) => e.field === "hostname"));
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
  });

  test("422 INVALID_CONFIG for a raw node.yaml draft: its errors by node.yaml key with line and column (SPEC §4), and for one that does not parse, its parse error; no attempt starts", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    const yaml = VALID_NODE_YAML.replace("hostname: node-01", "hostname: UPPER_case").replace("  gateway: 10.20.0.1\n", "  gateway: 10.20.0.1\n  floating_ip_cidrs:\n    - 203.0.113.0/33\n");
    const asNodeYaml = { method: "PUT", body: yaml, contentType: "application/yaml" } as const;
    assert.equal((await installer.request("/v1/installer/config", asNodeYaml)).status, 200);
    const body = assertRouteProblem(route, await installer.request("/v1/installer/install", POST), 422, "INVALID_CONFIG");
    const at = (field: string) => body.errors.find((e: any) => e.field === field);
    assert.deepEqual([at("hostname")?.line, at("hostname")?.column], [2, 11], JSON.stringify(body.errors));
    assert.deepEqual([at("network.floating_ip_cidrs[0]")?.line, at("network.floating_ip_cidrs[0]")?.column], [8, 7], JSON.stringify(body.errors));
    assert.equal((await installer.request("/v1/installer/config", { ...asNodeYaml, body: "mode: [single-node\n" })).status, 200);
    const broken = assertRouteProblem(route, await installer.request("/v1/installer/install", POST), 422, "INVALID_CONFIG");
    assert.ok(broken.errors.length > 0 && broken.errors.every((e: any) => Number.isInteger(e.line) && Number.isInteger(e.column)), JSON.stringify(broken.errors));
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
  });

  test("409 INSTALL_BLOCKED naming the blockers while no payload is loaded", async (t) => {
    const installer = await inProcessApp(t, { payload: false });
    await putDraft(installer);
    const reply = await installer.request("/v1/installer/install", POST);
    const body = assertRouteProblem(route, reply, 409, "INSTALL_BLOCKED");
    assert.deepEqual(body.blockers.map((b: any) => b.code), ["PAYLOAD_NOT_LOADED"]);
  });

  test("409 INSTALL_BLOCKED (INSTALLER_STOPPING) once the installer is stopping: a request still answered on a connection the stop has not closed starts no attempt (it would be cut at the exit, its firstboot left unsupervised); /status says why", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    await installer.services.stop();
    const body = assertRouteProblem(route, await installer.request("/v1/installer/install", POST), 409, "INSTALL_BLOCKED");
    assert.deepEqual(body.blockers.map((b: any) => b.code), ["INSTALLER_STOPPING"]);
    assert.match(body.blockers[0].detail, /^The installer is stopping \(a restart, or a stop\): install once it answers again\.$/);
    const status = (await installer.request("/v1/installer/status")).json;
    assert.equal(status.attempt, 0);
    assert.deepEqual(status.blockers.map((b: any) => b.code), ["INSTALLER_STOPPING"]);
  });

  test("409 INSTALL_RUNNING: of three concurrent POSTs exactly one starts; the running attempt's draft is untouched", async (t) => {
    const installer = await installRig(t, { scenario: "never", timeout: 3600 });
    await putDraft(installer);
    const replies = await Promise.all([1, 2, 3].map(() => installer.request("/v1/installer/install", POST)));
    assert.deepEqual(replies.map((r) => r.status).sort(), [202, 409, 409]);
    for (const refused of replies.filter((r) => r.status === 409)) assertRouteProblem(route, refused, 409, "INSTALL_RUNNING");
    assertProblem(await installer.request("/v1/installer/install/verdict"), 409, "INSTALL_RUNNING");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "installing");
    // The first step starts a tick after the 202: until then the running attempt has step null.
    await waitFor("the first step", async () => (await installer.request("/v1/installer/status")).json.step ?? undefined);
    const before = await installer.request("/v1/installer/config");
    assertProblem(await installer.request("/v1/installer/config", { method: "PUT", body: { hostname: "changed-mid-install" } }), 409, "INSTALL_RUNNING");
    assert.equal((await installer.request("/v1/installer/config")).headers.etag, before.headers.etag);
  });

  test("412 PRECONDITION_FAILED when If-Match is not the draft's ETag; 202 when it is", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    const etag = (await installer.request("/v1/installer/config/review")).headers.etag as string;
    const stale = await installer.request("/v1/installer/install", { ...POST, headers: { "if-match": '"stale"' } });
    assertRouteProblem(route, stale, 412, "PRECONDITION_FAILED");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
    assertAnswers(route, 202, await installer.request("/v1/installer/install", { ...POST, headers: { "if-match": etag } }));
  });

  test("412 PRECONDITION_FAILED for the draft's ETag made weak (W/): If-Match compares strongly (RFC 9110 §13.1.1)", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    const etag = (await installer.request("/v1/installer/config/review")).headers.etag as string;
    const weak = await installer.request("/v1/installer/install", { ...POST, headers: { "if-match": `W/${etag}` } });
    const problem = assertRouteProblem(route, weak, 412, "PRECONDITION_FAILED");
    assert.match(String(problem.detail), /weak/);
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
    assertAnswers(route, 202, await installer.request("/v1/installer/install", { ...POST, headers: { "if-match": `W/${etag}, ${etag}` } }));
  });

  test("it takes no body: one sent (JSON that does not parse, text) is not read as input, and the install starts", async (t) => {
    const installer = await installRig(t);
    await putDraft(installer);
    assertAnswers(route, 202, await installer.request("/v1/installer/install", { method: "POST", body: "{bad", contentType: "text/plain" }));
    assert.equal((await finished(installer, 1)).outcome, "succeeded");
  });

  test("413 BODY_TOO_LARGE for a body over the 1 MiB limit (the operation takes none): declared in its responses; nothing starts", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request("/v1/installer/install", { method: "POST", body: BODY_OVER_1_MIB });
    assertRouteProblem(route, reply, 413, "BODY_TOO_LARGE");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
  });

  test("507 INSUFFICIENT_STORAGE when the state dir refuses the attempt's record", async (t) => {
    const installer = await inProcessApp(t);
    installer.services.attempts.begin = async () => {
      throw noSpace(installer.stateDir);
    };
    const reply = await installer.request("/v1/installer/install", POST);
    assertRouteProblem(route, reply, 507, "INSUFFICIENT_STORAGE");
  });

  test("auth: 401 without the code, 429 once locked out, 500 when the service fails; nothing starts", async (t) => {
    const installer = await inProcessApp(t);
    await putDraft(installer);
    for (const code of [null, "AAAA-BBBB-CCCC"]) assertRouteProblem(route, await installer.request("/v1/installer/install", { ...POST, code }), 401, "UNAUTHORIZED");
    for (let i = 0; i < 5; i++) await installer.request("/v1/installer/install", { ...POST, code: `WRNG-${i}`, from: "127.0.0.7" });
    const locked = await installer.request("/v1/installer/install", { ...POST, from: "127.0.0.7" });
    assertRouteProblem(route, locked, 429, "TOO_MANY_ATTEMPTS");
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
    installer.services.attempts.begin = async () => {
      throw new Error("boom");
    };
    assertRouteProblem(route, await installer.request("/v1/installer/install", POST), 500, "INTERNAL");
  });
});
