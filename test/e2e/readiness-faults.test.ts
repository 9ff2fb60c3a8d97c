import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { harness, tempDir, untilNoBlockers, waitFor, type RunningInstaller } from "../helpers/installer.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";

const lab = harness();

type Behaviour = "trickle" | "huge" | "ready";

interface FaultyCloud {
  url: string;
  behave(behaviour: Behaviour): void;
  openConnections(): number;
  close(): Promise<void>;
}

/** A cloud readiness endpoint that misbehaves: 200 and then one byte every 2 s forever, or a valid answer of 2 MiB. */
async function startFaultyCloud(behaviour: Behaviour): Promise<FaultyCloud> {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "faulty-cloud", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], now: new Date() });
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
  lab.defer(() => cloud.close());
  return cloud;
}

async function installAgainst(cloud: FaultyCloud, timeoutSeconds: number): Promise<RunningInstaller> {
  const folder = await tempDir("stratum-readiness-faults-");
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    args: [
      "--firstboot", "/bin/true",
      "--node-yaml", join(folder, "etc/stratum/node.yaml"),
      "--readiness-url", cloud.url,
      "--readiness-timeout", String(timeoutSeconds),
      "--readiness-interval", "0.1",
    ],
  });
  await untilNoBlockers(installer);
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  const started = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(started.status, 202, started.text);
  return installer;
}

/** Bounded: a readiness step that hangs fails here instead of hanging the test. */
function verdictOf(installer: RunningInstaller, attempt: number) {
  return waitFor(
    `attempt ${attempt} to end`,
    async () => {
      const reply = await installer.request(`/v1/installer/install/verdict?attempt=${attempt}`);
      return reply.status === 200 ? reply.json : undefined;
    },
    40_000,
  );
}

const polls = async (installer: RunningInstaller, attempt: number) =>
  ((await installer.request(`/v1/installer/install/events?attempt=${attempt}`)).json.events as any[]).filter((e) => e.type === "readiness.poll");

describe("readiness against a misbehaving cloud (SPEC §6: one deadline and a body limit per poll)", () => {
  test("a cloud that sends headers and then one byte every 2 s: each poll fails, the attempt ends READINESS_TIMEOUT at its deadline; a recheck succeeds once the cloud answers", { timeout: 120_000 }, async () => {
    const cloud = await startFaultyCloud("trickle");
    const installer = await installAgainst(cloud, 8);
    const verdict = await verdictOf(installer, 1);
    assert.deepEqual(verdict, { attempt: 1, kind: "install", outcome: "failed", step: "readiness", code: "READINESS_TIMEOUT", message: verdict.message, next: "recheckReadiness" });
    assert.match(verdict.message, /^The cloud was not READY within 8 s; last state UNREACHABLE \(no complete answer within 5 s\)\. Fix what is not ready/);

    const seen = await polls(installer, 1);
    assert.equal(seen[0].level, "warn");
    assert.deepEqual(seen[0].data, { state: "UNREACHABLE", detail: "no complete answer within 5 s" });
    const report = (await installer.request("/v1/installer/install/report?attempt=1")).json;
    assert.deepEqual(report.steps.map((s: any) => [s.step, s.state]), [["preflight", "succeeded"], ["write-config", "succeeded"], ["firstboot", "succeeded"], ["readiness", "failed"]]);
    assert.deepEqual(report.readinessHistory.map((r: any) => [r.state, r.detail]), [["UNREACHABLE", "no complete answer within 5 s"]]);
    assert.equal(report.verdict.code, "READINESS_TIMEOUT");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "failed");
    await waitFor("the installer to let go of the trickling connections", async () => (cloud.openConnections() === 0 ? true : undefined));

    cloud.behave("ready");
    assert.equal((await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" })).status, 202);
    assert.equal((await verdictOf(installer, 2)).outcome, "succeeded");
  });

  test("an answer over 1 MiB is an UNREACHABLE poll that says so; the attempt times out cleanly", { timeout: 120_000 }, async () => {
    const cloud = await startFaultyCloud("huge");
    const installer = await installAgainst(cloud, 3);
    const verdict = await verdictOf(installer, 1);
    assert.equal(verdict.code, "READINESS_TIMEOUT");
    assert.equal(verdict.next, "recheckReadiness");
    assert.match(verdict.message, /last state UNREACHABLE \(the answer is over 1 MiB\)/);
    const seen = await polls(installer, 1);
    assert.deepEqual(seen.map((e) => e.data), [{ state: "UNREACHABLE", detail: "the answer is over 1 MiB" }], "one event: the state did not change");
    assert.ok(!JSON.stringify(seen).includes("xxxx"), "nothing of the oversized answer is kept");
    assert.equal((await installer.request("/v1/installer/status")).json.phase, "failed");
  });
});
