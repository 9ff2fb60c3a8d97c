import assert from "node:assert/strict";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startReadinessServer, type ReadinessServer, type Scenario } from "../../demo/readiness-server.ts";
import { harness, persistedStore, readSse, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";

const lab = harness();

interface Rig {
  installer: RunningInstaller;
  readiness: ReadinessServer;
  folder: string;
  nodeYaml: string;
  firstbootRuns: () => Promise<number>;
}

/** A firstboot that logs each run to a file, prints its node.yaml (secrets and all), and fails while FAIL exists. */
const FIRSTBOOT = `#!/bin/sh
echo run >> "$(dirname "$0")/runs"
echo "firstboot: configuring from $1"
cat "$1"
echo "warning: clock not synced yet" >&2
if [ -e "$(dirname "$0")/FAIL" ]; then echo "error: could not bring up eno1" >&2; exit 4; fi
sleep \${FIRSTBOOT_SLEEP:-0}
echo "firstboot: done"
`;

async function rig(options: { scenario?: Scenario; timeout?: number; stateDir?: string; folder?: string; readiness?: ReadinessServer; env?: Record<string, string> } = {}): Promise<Rig> {
  const folder = options.folder ?? (await tempDir());
  const readiness = options.readiness ?? (await startReadinessServer({ port: 0, scenario: options.scenario ?? "ready", stageMs: 200 }));
  if (!options.readiness) lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, FIRSTBOOT);
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const installer = await lab.start({
    stateDir: options.stateDir ?? join(folder, "state"),
    env: options.env,
    args: [
      "--firstboot", firstboot,
      "--node-yaml", nodeYaml,
      "--readiness-url", readiness.url,
      "--readiness-timeout", String(options.timeout ?? 10),
      "--readiness-interval", "0.1",
    ],
  });
  await untilNoBlockers(installer);
  const firstbootRuns = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return { installer, readiness, folder, nodeYaml, firstbootRuns };
}

const SECRET_DRAFT = {
  ...VALID_DRAFT,
  cluster: { joinToken: "jt-SECRET-4711-token" },
  admin: { ...VALID_DRAFT.admin, passwordHash: "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0" },
};

async function putDraft(installer: RunningInstaller, draft: object = VALID_DRAFT) {
  const reply = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.valid, true, JSON.stringify(reply.json.errors));
}

async function install(installer: RunningInstaller) {
  const reply = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(reply.status, 202, reply.text);
  return reply.json as { attempt: number; phase: string; eventsUrl: string };
}

async function finished(installer: RunningInstaller, attempt: number) {
  return waitFor(`attempt ${attempt} to finish`, async () => {
    const reply = await installer.request(`/v1/installer/install/verdict?attempt=${attempt}`);
    return reply.status === 200 ? reply.json : undefined;
  });
}

describe("install attempts", () => {
  test("a whole install: events in order over SSE, verdict, report, node.yaml 0600, phase done, then 409", async () => {
    const { installer, nodeYaml } = await rig({ scenario: "progress" });
    await putDraft(installer, SECRET_DRAFT);
    const started = await install(installer);
    assert.deepEqual(started, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
    const stream = await readSse(`https://127.0.0.1:${installer.port}${started.eventsUrl}`, installer.code);
    assert.equal(stream.status, 200);
    assert.match(stream.contentType, /^text\/event-stream/);
    const events = stream.messages.map((m) => JSON.parse(m.data));
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "seq is 1, 2, 3 … with no gap");
    assert.deepEqual(stream.messages.map((m) => Number(m.id)), events.map((e) => e.seq), "SSE id = seq");
    const milestones = events.filter((e) => e.type !== "step.log" && e.type !== "step.progress" && e.type !== "readiness.poll").map((e) => `${e.type}${e.step ? `:${e.step}` : ""}`);
    assert.deepEqual(milestones, [
      "attempt.started",
      "step.started:preflight",
      "step.finished:preflight",
      "step.started:write-config",
      "step.finished:write-config",
      "step.started:firstboot",
      "step.finished:firstboot",
      "step.started:readiness",
      "step.finished:readiness",
      "attempt.finished:readiness",
    ]);
    const polls = events.filter((e) => e.type === "readiness.poll").map((e) => e.data.state);
    assert.deepEqual(polls, ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY"], "every change of state is an event");
    const logs = events.filter((e) => e.type === "step.log");
    assert.ok(logs.some((e) => e.level === "warn" && e.message === "warning: clock not synced yet" && e.data.stream === "stderr"));
    assert.ok(logs.some((e) => e.message === "firstboot: done"));

    const verdict = await installer.request("/v1/installer/install/verdict");
    assert.deepEqual(verdict.json, { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: verdict.json.message, next: "none" });

    const status = await installer.request("/v1/installer/status");
    assert.equal(status.json.phase, "done");
    assert.equal(status.json.attempt, 1);
    assert.ok(status.json.startedAt && status.json.finishedAt);
    assert.equal(status.json.step, undefined);

    const written = await readFile(nodeYaml, "utf8");
    assert.equal((await stat(nodeYaml)).mode & 0o777, 0o600);
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

    const everything = JSON.stringify(events) + report.text + verdict.text + installer.output().stderr;
    assert.doesNotMatch(everything, /jt-SECRET-4711-token/);
    assert.doesNotMatch(everything, /hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDf/);
    assert.doesNotMatch(everything, new RegExp(installer.code));

    const again = await installer.request("/v1/installer/install", { method: "POST" });
    assertProblem(again, 409, "ALREADY_INSTALLED");
    const recheck = await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" });
    assertProblem(recheck, 409, "ALREADY_INSTALLED");

    const late = await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-02" } });
    assertProblem(late, 409, "ALREADY_INSTALLED");

    const attempts = await installer.request("/v1/installer/install/attempts");
    assert.deepEqual(attempts.json.attempts.map((a: any) => [a.attempt, a.kind, a.state, a.startedBy]), [[1, "install", "succeeded", "person"]]);
  });

  test("firstboot fails: exit code and tail in the verdict, next retryInstall, RECHECK_NOT_APPLICABLE; a retry after the fix succeeds", async () => {
    const { installer, folder, firstbootRuns } = await rig();
    await writeFile(join(folder, "FAIL"), "");
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

    const recheck = await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" });
    assertProblem(recheck, 409, "RECHECK_NOT_APPLICABLE");

    await rm(join(folder, "FAIL"));
    const retry = await install(installer);
    assert.equal(retry.attempt, 2);
    const second = await finished(installer, 2);
    assert.equal(second.outcome, "succeeded");
    assert.equal(await firstbootRuns(), 2);
    const first = await installer.request("/v1/installer/install/verdict?attempt=1");
    assert.equal(first.json.code, "FIRSTBOOT_FAILED", "earlier verdicts stay readable");
  });

  test("readiness timeout names what is not ready; recheck-readiness succeeds once READY, without firstboot", async () => {
    const { installer, readiness, firstbootRuns } = await rig({ scenario: "never", timeout: 1.5 });
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

    readiness.setScenario("ready");
    const recheck = await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" });
    assert.equal(recheck.status, 202, recheck.text);
    assert.equal(recheck.json.attempt, 2);
    const second = await finished(installer, 2);
    assert.deepEqual({ ...second, message: "" }, { attempt: 2, kind: "recheck-readiness", outcome: "succeeded", step: "readiness", code: null, message: "", next: "none" });
    const report = (await installer.request("/v1/installer/install/report?attempt=2")).json;
    assert.deepEqual(report.steps.map((s: any) => s.step), ["readiness"]);
    assert.equal(await firstbootRuns(), 1, "a recheck never re-runs firstboot");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "done");
  });

  test("the readiness wait's deadline, --readiness-timeout after its step started: in its step.started event and the report's step; the step ends there. The report says where the installed cloud and node answer, a recheck's as its install's", async () => {
    const { installer, readiness } = await rig({ scenario: "never", timeout: 1.5 });
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

    const endpoints = { cloudApi: `${new URL(readiness.url).protocol}//10.20.0.11:${new URL(readiness.url).port}`, ssh: "10.20.0.11" };
    assert.deepEqual(report.endpoints, endpoints);
    const edited = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, network: { ...VALID_DRAFT.network, address: "10.20.0.12/24" } } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal((await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" })).status, 202);
    assert.deepEqual((await installer.request("/v1/installer/install/report?attempt=2")).json.endpoints, endpoints, "a recheck waits for what the install installed, whatever the draft says since");
  });

  test("an unreachable readiness endpoint is a state, not a crash", async () => {
    const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
    const { installer } = await rig({ readiness, timeout: 1 });
    await readiness.close();
    await putDraft(installer);
    await install(installer);
    const verdict = await finished(installer, 1);
    assert.equal(verdict.code, "READINESS_TIMEOUT");
    assert.match(verdict.message, /UNREACHABLE/);
    const events = (await installer.request("/v1/installer/install/events?attempt=1")).json.events;
    assert.ok(events.some((e: any) => e.type === "readiness.poll" && e.data.state === "UNREACHABLE" && /ECONNREFUSED/.test(e.data.detail)));
  });

  test("POST /install: 422 with field errors for an invalid draft; RECHECK_NOT_APPLICABLE before any attempt; 404 for an unknown attempt", async () => {
    const { installer } = await rig();
    await installer.request("/v1/installer/config", { method: "PUT", body: { mode: "single-node" } });
    const reply = await installer.request("/v1/installer/install", { method: "POST" });
    assertProblem(reply, 422, "INVALID_CONFIG");
    assert.ok(reply.json.errors.some((e: any) => e.field === "hostname"));
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0);
    const recheck = await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" });
    assertProblem(recheck, 409, "RECHECK_NOT_APPLICABLE");
    for (const path of ["verdict", "report", "events"]) {
      const missing = await installer.request(`/v1/installer/install/${path}?attempt=7`);
      assertProblem(missing, 404, "NOT_FOUND", { what: path });
    }
  });

  test("two concurrent POSTs: exactly one 202, the other 409 INSTALL_RUNNING", async () => {
    const { installer } = await rig({ scenario: "never", timeout: 2 });
    await putDraft(installer);
    const replies = await Promise.all([1, 2, 3].map(() => installer.request("/v1/installer/install", { method: "POST" })));
    assert.deepEqual(replies.map((r) => r.status).sort(), [202, 409, 409]);
    for (const refused of replies.filter((r) => r.status === 409)) assertProblem(refused, 409, "INSTALL_RUNNING");
    assertProblem(await installer.request("/v1/installer/install/verdict"), 409, "INSTALL_RUNNING");
    const status = (await installer.request("/v1/installer/status")).json;
    assert.equal(status.phase, "installing");
    // The first step starts a tick after the 202: until then the running attempt has step null.
    await waitFor("the first step", async () => ((await installer.request("/v1/installer/status")).json.step ?? undefined));
    const before = await installer.request("/v1/installer/config");
    const change = await installer.request("/v1/installer/config", { method: "PUT", body: { hostname: "changed-mid-install" } });
    assertProblem(change, 409, "INSTALL_RUNNING");
    assert.equal((await installer.request("/v1/installer/config")).headers.etag, before.headers.etag, "the running attempt's draft is untouched");
  });

  test("SSE resume with Last-Event-ID loses and duplicates nothing", async () => {
    const { installer } = await rig({ scenario: "progress" });
    await putDraft(installer);
    await install(installer);
    const url = `https://127.0.0.1:${installer.port}/v1/installer/install/events?attempt=1`;
    const firstPart = await readSse(url, installer.code, { stopAfter: 5 });
    const lastId = firstPart.messages.at(-1)!.id!;
    const rest = await readSse(url, installer.code, { lastEventId: lastId });
    const seqs = [...firstPart.messages, ...rest.messages].map((m) => JSON.parse(m.data).seq);
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
    assert.equal(JSON.parse(rest.messages.at(-1)!.data).type, "attempt.finished");
    const json = (await installer.request("/v1/installer/install/events?attempt=1&after=3")).json;
    assert.equal(json.events[0].seq, 4);
    assert.equal(json.finished, true);
  });
});

describe("crash recovery", () => {
  for (const [step, next, scenario] of [
    ["firstboot", "retryInstall", "ready"],
    ["readiness", "recheckReadiness", "never"],
  ] as const) {
    test(`kill -9 during ${step}: the next start marks the attempt INTERRUPTED with next ${next}`, async () => {
      const folder = await tempDir();
      const stateDir = join(folder, "state");
      const first = await rig({ folder, stateDir, scenario, timeout: 60, env: { FIRSTBOOT_SLEEP: step === "firstboot" ? "30" : "0" } });
      await putDraft(first.installer);
      await install(first.installer);
      await waitFor(`step ${step} on disk`, async () => ((await persistedStore(stateDir)).attempts?.[0]?.step === step ? true : undefined));
      if (step === "readiness") await new Promise((r) => setTimeout(r, 300));
      await first.installer.kill9();
      const second = await rig({ folder, stateDir, readiness: first.readiness });
      assert.match(second.installer.banner, new RegExp(`attempt 1 was interrupted at ${step}`));
      const verdict = (await second.installer.request("/v1/installer/install/verdict")).json;
      assert.equal(verdict.code, "INTERRUPTED");
      assert.equal(verdict.step, step);
      assert.equal(verdict.next, next);
      assert.equal((await second.installer.request("/v1/installer/status")).json.phase, "failed");
      const events = (await second.installer.request("/v1/installer/install/events?attempt=1")).json;
      assert.equal(events.finished, true);
      assert.ok(events.events.some((e: any) => e.type === "step.started" && e.step === step));
      assert.equal(events.events.at(-1).type, "attempt.finished");
      if (step === "readiness") {
        const recheck = await second.installer.request("/v1/installer/install/recheck-readiness", { method: "POST" });
        assert.equal(recheck.status, 202);
      }
    });
  }
});

