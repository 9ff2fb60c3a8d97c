import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { INIT_DRAFT, VALID_DRAFT } from "../helpers/fixtures.ts";
import { harness, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { assertProblem } from "../helpers/problem.ts";

const lab = harness();

/** Logs each run, prints its node.yaml (the secret with it: output must be redacted), then succeeds. */
const FIRSTBOOT = `#!/bin/sh
echo run >> "$(dirname "$0")/runs"
echo "firstboot: founding from $1"
cat "$1"
`;

interface Node {
  installer: RunningInstaller;
  folder: string;
  nodeYaml: string;
  firstbootRuns(): Promise<number>;
}

async function node(cloud: ReadinessServer, options: { folder?: string; release?: string } = {}): Promise<Node> {
  const folder = options.folder ?? (await tempDir("stratum-cluster-"));
  const firstboot = await writeFirstboot(folder, FIRSTBOOT);
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const payload = join(folder, "payload");
  await makePayload(payload, options.release ? { release: options.release } : {});
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    payload,
    args: ["--firstboot", firstboot, "--node-yaml", nodeYaml, "--readiness-url", cloud.url, "--readiness-timeout", "10", "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  const firstbootRuns = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return { installer, folder, nodeYaml, firstbootRuns };
}

const joinDraft = (cloud: ReadinessServer, token: string, cluster: Record<string, string> = {}) => ({
  ...VALID_DRAFT,
  mode: "hyperconverged-join",
  hostname: "node-02",
  network: { ...VALID_DRAFT.network, address: "10.20.0.12/24" },
  storage: { osdDevices: ["/dev/sdb"] },
  cluster: { name: "rack-a", joinAddress: `127.0.0.1:${cloud.port}`, joinToken: token, ...cluster },
});

async function put(installer: RunningInstaller, draft: object) {
  const reply = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.valid, true, JSON.stringify(reply.json.errors));
}

async function installed(installer: RunningInstaller) {
  const started = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(started.status, 202, started.text);
  return waitFor(`attempt ${started.json.attempt}`, async () => {
    const reply = await installer.request(`/v1/installer/install/verdict?attempt=${started.json.attempt}`);
    return reply.status === 200 ? reply.json : undefined;
  });
}

/** Everything a node says about an attempt: events, report, verdict, its log. */
async function everything(installer: RunningInstaller): Promise<string> {
  const parts = await Promise.all(["events?attempt=1", "report", "verdict"].map((p) => installer.request(`/v1/installer/install/${p}`)));
  return [...parts.map((p) => p.text), installer.output().stderr, installer.output().stdout].join("\n");
}

const swap = (token: string, part: 1 | 2, value: string) => token.split(":").map((p, i) => (i === part ? value : p)).join(":");

describe("the join check (SPEC §6)", () => {
  let cloud: ReadinessServer;
  let init: Node;
  let token: string;
  let secret: string;

  before(async () => {
    const folder = await tempDir("stratum-init-");
    cloud = await startReadinessServer({ port: 0, scenario: "ready", foundedWith: join(folder, "etc/stratum/node.yaml") });
    init = await node(cloud, { folder });
  });
  after(() => cloud.close());

  test("an init node: 409 NOT_INSTALLED before, then a generated secret in node.yaml (0600, redacted everywhere) and the join token pinning the cloud's certificate", async () => {
    await put(init.installer, INIT_DRAFT);
    const shown = await init.installer.request("/v1/installer/config/node.yaml");
    assert.equal(shown.status, 200, shown.text);
    assertProblem(await init.installer.request("/v1/installer/cluster/join-token"), 409, "NOT_INSTALLED");
    const verdict = await installed(init.installer);
    assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));

    const reply = await init.installer.request("/v1/installer/cluster/join-token");
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(Object.keys(reply.json).sort(), ["cluster", "joinAddress", "release", "token"]);
    assert.equal(reply.json.joinAddress, "10.20.0.10");
    assert.equal(reply.json.cluster, "rack-a");
    assert.equal(reply.json.release, "2026.11.0");
    token = reply.json.token;
    const [prefix, fingerprint, tokenSecret] = token.split(":");
    assert.equal(prefix, "STRATUM1");
    assert.equal(fingerprint, cloud.certSha256, "the token pins the certificate readiness met");
    secret = tokenSecret!;
    assert.ok(Buffer.from(secret, "base64url").length >= 16);

    const written = await readFile(init.nodeYaml, "utf8");
    const lines = written.split("\n");
    const tokenLine = lines.findIndex((line) => line === `  join_token: "${secret}"`);
    assert.ok(tokenLine > 0, `firstboot founds the cluster with it:\n${written}`);
    lines.splice(tokenLine, 1);
    assert.equal(lines.join("\n"), shown.text, "the rest is the node.yaml GET /config/node.yaml showed, line for line");
    assert.equal((await stat(init.nodeYaml)).mode & 0o777, 0o600);
    const said = await everything(init.installer);
    assert.ok(said.includes("[redacted]"), "firstboot printed node.yaml");
    assert.ok(!said.includes(secret), "the secret is redacted in events, report, verdict and log");
  });

  test("the join token: 404 on a node of another mode", async () => {
    const single = await node(cloud);
    await put(single.installer, VALID_DRAFT);
    assertProblem(await single.installer.request("/v1/installer/cluster/join-token"), 404, "NOT_FOUND");
  });

  test("a good token: the check on demand passes, then the join installs", async () => {
    const joiner = await node(cloud);
    await put(joiner.installer, joinDraft(cloud, token));
    const check = await joiner.installer.request("/v1/installer/cluster/join-check", { method: "POST" });
    assert.equal(check.status, 200, check.text);
    assert.equal(check.json.ok, true, JSON.stringify(check.json));
    assert.deepEqual(check.json.checks.map((c: { name: string }) => c.name), ["reachable", "fingerprint", "join-info", "cluster", "release", "clock", "token"]);
    const verdict = await installed(joiner.installer);
    assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
    const report = (await joiner.installer.request("/v1/installer/install/report")).json;
    assert.ok(report.joinCheck.every((c: { ok: boolean }) => c.ok));
    assert.equal(await joiner.firstbootRuns(), 1);
    const received = JSON.stringify(cloud.received());
    assert.ok(!received.includes(secret), "the secret never reached the cloud");
    assert.ok(!(await everything(joiner.installer)).includes(secret), "nor the join node's output");
  });

  test("a wrong fingerprint: JOIN_FINGERPRINT_MISMATCH, and the cloud received no request at all", async () => {
    const joiner = await node(cloud);
    await put(joiner.installer, joinDraft(cloud, swap(token, 1, "ab".repeat(32))));
    const before = cloud.received().length;
    const verdict = await installed(joiner.installer);
    assert.equal(cloud.received().length, before, "nothing was sent to a server the token does not pin");
    assertJoinFailure(verdict, ["JOIN_FINGERPRINT_MISMATCH"], "fixConfig");
    await assertNothingWritten(joiner);
  });

  test("a wrong secret: JOIN_TOKEN_REFUSED", async () => {
    const joiner = await node(cloud);
    const wrong = Buffer.alloc(32, 7).toString("base64url");
    await put(joiner.installer, joinDraft(cloud, swap(token, 2, wrong)));
    assertJoinFailure(await installed(joiner.installer), ["JOIN_TOKEN_REFUSED"], "fixConfig");
    await assertNothingWritten(joiner);
    assert.ok(!JSON.stringify(cloud.received()).includes(wrong), "a proof, never the secret");
  });

  test("another release: JOIN_RELEASE_MISMATCH, next retryInstall", async () => {
    const joiner = await node(cloud, { release: "2026.12.0" });
    await put(joiner.installer, joinDraft(cloud, token));
    assertJoinFailure(await installed(joiner.installer), ["JOIN_RELEASE_MISMATCH"], "retryInstall");
    await assertNothingWritten(joiner);
  });

  test("a skewed cluster clock, another cluster name and release: every failure reported at once", async () => {
    const skewed = await startReadinessServer({ port: 0, scenario: "ready", cluster: { name: "rack-b", secret }, clockOffsetMs: 120_000, release: "2026.10.0" });
    lab.defer(() => skewed.close());
    const joiner = await node(skewed);
    await put(joiner.installer, joinDraft(skewed, `STRATUM1:${skewed.certSha256}:${secret}`));
    const verdict = await installed(joiner.installer);
    assertJoinFailure(verdict, ["JOIN_CLUSTER_MISMATCH", "JOIN_RELEASE_MISMATCH", "JOIN_CLOCK_SKEW"], "fixConfig");
    await assertNothingWritten(joiner);
  });

  // Bounded by the check's own deadline; a broken one fails by this timeout, not by a hang.
  test("a dead address: JOIN_UNREACHABLE within seconds", { timeout: 120_000 }, async () => {
    const blackhole: Server = createServer(() => undefined); // accepts TCP, never answers TLS
    await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve));
    lab.defer(() => new Promise<void>((resolve) => blackhole.close(() => resolve())));
    const port = (blackhole.address() as { port: number }).port;
    const joiner = await node(cloud);
    await put(joiner.installer, { ...joinDraft(cloud, token), cluster: { name: "rack-a", joinAddress: `127.0.0.1:${port}`, joinToken: token } });
    const check = await joiner.installer.request("/v1/installer/cluster/join-check", { method: "POST" });
    assert.equal(check.json.ok, false);
    assert.equal(check.json.checks[0].code, "JOIN_UNREACHABLE");
    // Bounded by the check's 5 s deadline, which its detail names (no figure of the test's clock asserted).
    assert.match(check.json.checks[0].detail, /within 5 s/);
    assertJoinFailure(await installed(joiner.installer), ["JOIN_UNREACHABLE"], "retryInstall");
    await assertNothingWritten(joiner);
    const logged = joiner.installer.output().stderr.split("\n").filter(Boolean).map((line) => JSON.parse(line)).filter((entry) => entry.message === "join check");
    assert.deepEqual(logged.map(({ time: _time, ...entry }) => entry), [
      { level: "warn", message: "join check", requestId: check.headers["x-request-id"], client: "127.0.0.1", ok: false, codes: ["JOIN_UNREACHABLE"] },
      { level: "warn", message: "join check", attempt: 1, ok: false, codes: ["JOIN_UNREACHABLE"] },
    ], "the service log has each join check's result, the one on demand with its request");
  });

  test("the check on demand: 422 on a draft that is not a join or lacks its token", async () => {
    const joiner = await node(cloud);
    await put(joiner.installer, VALID_DRAFT);
    assertProblem(await joiner.installer.request("/v1/installer/cluster/join-check", { method: "POST" }), 422, "INVALID_CONFIG");
    await joiner.installer.request("/v1/installer/config", { method: "PUT", body: { ...joinDraft(cloud, token), cluster: { joinAddress: "127.0.0.1" } } });
    const reply = await joiner.installer.request("/v1/installer/cluster/join-check", { method: "POST" });
    assertProblem(reply, 422, "INVALID_CONFIG");
    assert.deepEqual(reply.json.errors.map((e: { field: string }) => e.field), ["cluster.joinToken"]);
  });
});

function assertJoinFailure(verdict: any, codes: string[], next: string) {
  assert.equal(verdict.outcome, "failed", JSON.stringify(verdict));
  assert.equal(verdict.code, "PREFLIGHT_FAILED");
  assert.equal(verdict.step, "preflight");
  assert.equal(verdict.next, next);
  const failed = verdict.checks.filter((c: { code?: string }) => c.code).map((c: { code: string }) => c.code).sort();
  assert.deepEqual(failed, [...codes].sort(), JSON.stringify(verdict.checks));
  for (const code of codes) assert.match(verdict.message, new RegExp(code));
}

async function assertNothingWritten(joiner: Node) {
  await assert.rejects(stat(joiner.nodeYaml), { code: "ENOENT" }, "node.yaml is not written");
  assert.equal(await joiner.firstbootRuns(), 0, "firstboot never ran");
  const report = (await joiner.installer.request("/v1/installer/install/report")).json;
  assert.equal(report.joinCheck.length, 7);
  const events = (await joiner.installer.request("/v1/installer/install/events?attempt=1")).json.events;
  assert.ok(events.some((e: { message: string }) => e.message.startsWith("join check ")));
}
