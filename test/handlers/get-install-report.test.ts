import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import getReport from "../../handlers/get-install-report.ts";
import { inProcessApp, type InProcessApp } from "../helpers/app.ts";
import { finished, install, installRig, putDraft } from "../helpers/install-rig.ts";
import { waitFor } from "../helpers/installer.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertRouteProblem } from "../helpers/route-problem.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const { route } = getReport;
const PATH = "/v1/installer/install/report";

type Behaviour = "trickle" | "huge" | "ready";

interface FaultyCloud {
  url: string;
  behave(behaviour: Behaviour): void;
  openConnections(): number;
  close(): Promise<void>;
}

/** A cloud readiness endpoint that misbehaves: 200 and then one byte every 2 s forever, or a valid answer of 2 MiB. */
async function startFaultyCloud(t: TestContext, behaviour: Behaviour): Promise<FaultyCloud> {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "faulty-cloud", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] });
  const sockets = new Set<Socket>();
  const trickles = new Set<NodeJS.Timeout>();
  const answer = (res: ServerResponse) => {
    if (behaviour === "ready") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ state: "READY" }));
    if (behaviour === "huge") {
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ state: "BOOTSTRAPPING", detail: "x".repeat(2 * 1024 * 1024) }));
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    const timer = setInterval(() => res.write(" "), 2_000);
    trickles.add(timer);
    res.on("close", () => {
      clearInterval(timer);
      trickles.delete(timer);
    });
  };
  const server = https.createServer({ cert: certPem, key: keyPem }, (_req, res) => answer(res));
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const cloud: FaultyCloud = {
    url: `https://127.0.0.1:${port}/v1/readiness`,
    behave: (next) => (behaviour = next),
    openConnections: () => sockets.size,
    close: async () => {
      for (const timer of trickles) clearInterval(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  t.after(() => cloud.close());
  return cloud;
}

async function installAgainst(t: TestContext, cloud: FaultyCloud, timeoutSeconds: number): Promise<InProcessApp> {
  const installer = await inProcessApp(t, { args: ["--readiness-url", cloud.url, "--readiness-timeout", String(timeoutSeconds), "--readiness-interval", "0.1"] });
  await installer.untilNoBlockers();
  await putDraft(installer);
  await install(installer);
  return installer;
}

const polls = async (installer: InProcessApp, attempt: number) =>
  ((await installer.request(`/v1/installer/install/events?attempt=${attempt}`)).json.events as any[]).filter((e) => e.type === "readiness.poll");

describe("readiness against a misbehaving cloud (SPEC §6: one deadline and a body limit per poll)", () => {
  test("a cloud that sends headers and then one byte every 2 s: each poll fails, the attempt ends READINESS_TIMEOUT at its deadline; a recheck succeeds once the cloud answers", { timeout: 120_000 }, async (t) => {
    const cloud = await startFaultyCloud(t, "trickle");
    const installer = await installAgainst(t, cloud, 8);
    const verdict = await finished(installer, 1);
    assert.deepEqual(verdict, { attempt: 1, kind: "install", outcome: "failed", step: "readiness", code: "READINESS_TIMEOUT", message: verdict.message, next: "recheckReadiness" });
    assert.match(verdict.message, /^The cloud was not READY within 8 s; last state UNREACHABLE \(no complete answer within 5 s\)\. Fix what is not ready/);

    const seen = await polls(installer, 1);
    assert.equal(seen[0].level, "warn");
    assert.deepEqual(seen[0].data, { state: "UNREACHABLE", detail: "no complete answer within 5 s" });
    const report = assertAnswers(route, 200, await installer.request(`${PATH}?attempt=1`));
    assert.deepEqual(report.steps.map((s: any) => [s.step, s.state]), [["preflight", "succeeded"], ["write-config", "succeeded"], ["firstboot", "succeeded"], ["readiness", "failed"]]);
    assert.deepEqual(report.readinessHistory.map((r: any) => [r.state, r.detail]), [["UNREACHABLE", "no complete answer within 5 s"]]);
    assert.equal(report.verdict?.code, "READINESS_TIMEOUT");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "failed");
    await waitFor("the installer to let go of the trickling connections", async () => (cloud.openConnections() === 0 ? true : undefined));

    cloud.behave("ready");
    assert.equal((await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" })).status, 202);
    assert.equal((await finished(installer, 2)).outcome, "succeeded");
  });

  test("an answer over 1 MiB is an UNREACHABLE poll that says so; the attempt times out cleanly", { timeout: 120_000 }, async (t) => {
    const cloud = await startFaultyCloud(t, "huge");
    const installer = await installAgainst(t, cloud, 3);
    const verdict = await finished(installer, 1);
    assert.equal(verdict.code, "READINESS_TIMEOUT");
    assert.equal(verdict.next, "recheckReadiness");
    assert.match(verdict.message, /last state UNREACHABLE \(the answer is over 1 MiB\)/);
    const seen = await polls(installer, 1);
    assert.deepEqual(seen.map((e) => e.data), [{ state: "UNREACHABLE", detail: "the answer is over 1 MiB" }], "one event: the state did not change");
    assert.ok(!JSON.stringify(seen).includes("xxxx"), "nothing of the oversized answer is kept");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "failed");
  });
});

describe("GET /v1/installer/install/report", () => {
  test("200: every step, the redacted draft, the host, firstboot's tail and the readiness history; the latest attempt by default", async (t) => {
    const installer = await installRig(t, { scenario: "progress" });
    await putDraft(installer);
    await install(installer);
    const verdict = await finished(installer, 1);
    const report = assertAnswers(route, 200, await installer.request(PATH));
    assert.deepEqual(report.verdict, verdict);
    assert.deepEqual([report.attempt, report.kind, report.startedBy, report.state, report.step], [1, "install", "person", "succeeded", "readiness"]);
    assert.deepEqual(report.steps.map((s: any) => [s.step, s.state]), [["preflight", "succeeded"], ["write-config", "succeeded"], ["firstboot", "succeeded"], ["readiness", "succeeded"]]);
    assert.equal(report.config.source, "structured");
    assert.equal(report.host.hostname, "node-01");
    assert.equal(report.nodeYamlPath, installer.nodeYaml);
    assert.ok(report.firstbootTail.includes("firstboot: done"));
    assert.deepEqual(report.readinessHistory.map((r: any) => r.state), ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY"]);
    // SPEC §6: every step with its times, and the payload's version.
    for (const step of report.steps) assert.ok(step.finishedAt && step.startedAt <= step.finishedAt, JSON.stringify(step));
    assert.deepEqual(report.steps.map((s: any) => s.startedAt), [...report.steps.map((s: any) => s.startedAt)].sort(), "in the order they ran");
    const { release } = (await installer.request("/v1/installer/options")).json;
    assert.ok(typeof release === "string" && release.length > 0, String(release));
    assert.equal(report.payloadVersion, release);
    assert.deepEqual(assertAnswers(route, 200, await installer.request(`${PATH}?attempt=1`)), report);
  });

  test("400 INVALID_REQUEST for an attempt that is not a number from 1", async (t) => {
    const installer = await inProcessApp(t);
    for (const attempt of ["x", "0"]) assertRouteProblem(route, await installer.request(`${PATH}?attempt=${attempt}`), 400, "INVALID_REQUEST", { what: attempt });
    // A parameter misspelt would answer for the latest attempt, or from the start, as if it were not there.
    assertRouteProblem(route, await installer.request(`${PATH}?attemp=2`), 400, "INVALID_REQUEST", { detail: /attemp/ });
  });

  test("404 NOT_FOUND for an unknown attempt, and for the latest before any attempt", async (t) => {
    const installer = await inProcessApp(t);
    assertRouteProblem(route, await installer.request(`${PATH}?attempt=7`), 404, "NOT_FOUND");
    assertRouteProblem(route, await installer.request(PATH), 404, "NOT_FOUND");
  });

  describeAuth(route, {
    path: PATH,
    breaks: (services) => {
      services.attempts.report = () => {
        throw new Error("boom");
      };
    },
  });
});
