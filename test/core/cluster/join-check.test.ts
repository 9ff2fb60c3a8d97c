import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import https from "node:https";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { runJoinCheck, type JoinCheckInput } from "../../../core/cluster/join-check.ts";
import { joinCheckNext, type JoinCheckResult } from "../../../core/cluster/join-codes.ts";
import { formatJoinToken, generateSecret } from "../../../core/cluster/join-token.ts";
import { generateSelfSignedCert } from "../../../core/access/tls.ts";
import { startReadinessServer, type ReadinessServer, type ReadinessServerOptions } from "../../../demo/readiness-server.ts";
import { JOIN_CHECK_NAMES } from "../../../core/state/records.ts";

const SECRET = generateSecret();
const RELEASE = "2026.11.0";

async function startCloud(t: TestContext, options: ReadinessServerOptions = {}): Promise<ReadinessServer> {
  const cloud = await startReadinessServer({ scenario: "ready", cluster: { name: "lab-1", secret: SECRET }, release: RELEASE, ...options });
  t.after(() => cloud.close());
  return cloud;
}

const tokenFor = (cloud: ReadinessServer, secret = SECRET, fingerprint = cloud.certSha256) => formatJoinToken({ fingerprint, secret });

function check(cloud: ReadinessServer, input: Partial<JoinCheckInput> = {}): Promise<JoinCheckResult> {
  return runJoinCheck({ joinAddress: `127.0.0.1:${cloud.port}`, token: tokenFor(cloud), clusterName: "lab-1", release: RELEASE, now: () => new Date(), ...input });
}

/** [name, ok, code] per check, in order. */
const outline = (result: JoinCheckResult) => result.checks.map((c) => [c.name, c.ok, c.code]);
const failures = (result: JoinCheckResult) => result.checks.filter((c) => c.code).map((c) => c.code);

/** Nothing the cloud received carries the token or its secret, in any header or body. */
function assertSecretNeverSent(cloud: ReadinessServer, token: string): void {
  const seen = JSON.stringify(cloud.received());
  assert.ok(!seen.includes(SECRET), "the cloud received the secret");
  assert.ok(!seen.includes(token), "the cloud received the token");
}

test("a good token passes every check, and the cloud sees a nonce and a proof, never the secret", async (t) => {
  const cloud = await startCloud(t);
  const result = await check(cloud);
  assert.deepEqual(result, {
    ok: true,
    checks: [
      { name: "reachable", ok: true, detail: `TLS connection to 127.0.0.1:${cloud.port}` },
      { name: "fingerprint", ok: true, detail: `the certificate's SHA-256 is the token's (${cloud.certSha256.slice(0, 16)}…)` },
      { name: "join-info", ok: true, detail: `127.0.0.1:${cloud.port} answered GET /v1/cluster/join-info` },
      { name: "cluster", ok: true, detail: 'the cluster is "lab-1"' },
      { name: "release", ok: true, detail: 'the cluster and this node both run release "2026.11.0"' },
      { name: "clock", ok: true, detail: result.checks[5]?.detail },
      { name: "token", ok: true, detail: "the cluster accepted the proof of the token's secret" },
    ],
  });
  assert.match(result.checks[5]?.detail ?? "", /^the clocks agree within \d+(\.\d)? s \(at most 30 s allowed\)$/);
  const received = cloud.received();
  assert.deepEqual(received.map((r) => `${r.method} ${r.path}`).sort(), ["GET /v1/cluster/join-info", "POST /v1/cluster/join-check"]);
  const posted = JSON.parse(received.find((r) => r.method === "POST")?.body ?? "{}") as Record<string, unknown>;
  assert.deepEqual(Object.keys(posted).sort(), ["nonce", "proof"]);
  assert.match(String(posted.nonce), /^[A-Za-z0-9_-]{43}$/);
  assert.match(String(posted.proof), /^[0-9a-f]{64}$/);
  assertSecretNeverSent(cloud, tokenFor(cloud));
});

test("without a cluster name in the draft any cluster is accepted", async (t) => {
  const cloud = await startCloud(t);
  const result = await check(cloud, { clusterName: undefined });
  assert.equal(result.ok, true);
  assert.equal(result.checks[3]?.detail, 'the cluster is "lab-1" (the draft names none, so any is accepted)');
});

test("a wrong fingerprint fails before any request: the cloud accepted a connection and received nothing", async (t) => {
  const cloud = await startCloud(t);
  const token = tokenFor(cloud, SECRET, "0".repeat(64));
  const result = await check(cloud, { token });
  assert.deepEqual(outline(result), [
    ["reachable", true, undefined],
    ["fingerprint", false, "JOIN_FINGERPRINT_MISMATCH"],
    ...JOIN_CHECK_NAMES.slice(2).map((name) => [name, false, undefined]),
  ]);
  assert.equal(
    result.checks[1]?.detail,
    `127.0.0.1:${cloud.port} presented a certificate with SHA-256 ${cloud.certSha256.slice(0, 16)}…, the token pins 0000000000000000…: the join address is not the node the token came from, or the token is another cluster's; check the join address and copy the token again from the init node (nothing was sent)`,
  );
  assert.equal(result.checks[2]?.detail, "not checked: the certificate is not the token's, so nothing was sent");
  await new Promise((resolve) => setTimeout(resolve, 100)); // anything in flight would have arrived by now
  assert.equal(cloud.connections(), 1);
  assert.deepEqual(cloud.received(), []);
  assert.equal(joinCheckNext(result.checks), "fixConfig");
});

test("a wrong secret is refused by the cluster, which never sees it", async (t) => {
  const cloud = await startCloud(t);
  const token = tokenFor(cloud, generateSecret());
  const result = await check(cloud, { token });
  assert.deepEqual(failures(result), ["JOIN_TOKEN_REFUSED"]);
  assert.equal(
    result.checks[6]?.detail,
    `the cluster at 127.0.0.1:${cloud.port} refused the proof: the token's secret is not this cluster's (another cluster's token, or an old one); copy the token again from the init node`,
  );
  assertSecretNeverSent(cloud, token);
  assert.equal(joinCheckNext(result.checks), "fixConfig");
});

test("a cluster of another release fails with JOIN_RELEASE_MISMATCH", async (t) => {
  const cloud = await startCloud(t, { release: "2026.12.0" });
  const result = await check(cloud);
  assert.deepEqual(failures(result), ["JOIN_RELEASE_MISMATCH"]);
  assert.match(result.checks[4]?.detail ?? "", /^the cluster runs release "2026.12.0", this node's payload is release "2026.11.0": load the payload/);
  assert.equal(joinCheckNext(result.checks), "retryInstall");
});

test("a skewed clock fails with JOIN_CLOCK_SKEW, the cloud's or this node's", async (t) => {
  const cloud = await startCloud(t, { clockOffsetMs: 90_000 });
  const ahead = await check(cloud);
  assert.deepEqual(failures(ahead), ["JOIN_CLOCK_SKEW"]);
  assert.match(ahead.checks[5]?.detail ?? "", /^the cluster's clock is (89\.\d|90) s ahead of this node's/);

  const honest = await startCloud(t);
  const behind = await check(honest, { now: () => new Date(Date.now() + 45_000) });
  assert.deepEqual(failures(behind), ["JOIN_CLOCK_SKEW"]);
  assert.match(behind.checks[5]?.detail ?? "", /^the cluster's clock is 4[45](\.\d)? s behind this node's/);
});

test("a cluster of another name fails with JOIN_CLUSTER_MISMATCH", async (t) => {
  const cloud = await startCloud(t);
  const result = await check(cloud, { clusterName: "lab-2" });
  assert.deepEqual(failures(result), ["JOIN_CLUSTER_MISMATCH"]);
  assert.equal(joinCheckNext(result.checks), "fixConfig");
});

test("every failure is reported at once", async (t) => {
  const cloud = await startCloud(t, { release: "2027.1.0", clockOffsetMs: -120_000 });
  const token = tokenFor(cloud, generateSecret());
  const result = await check(cloud, { token, clusterName: "lab-9" });
  assert.deepEqual(outline(result), [
    ["reachable", true, undefined],
    ["fingerprint", true, undefined],
    ["join-info", true, undefined],
    ["cluster", false, "JOIN_CLUSTER_MISMATCH"],
    ["release", false, "JOIN_RELEASE_MISMATCH"],
    ["clock", false, "JOIN_CLOCK_SKEW"],
    ["token", false, "JOIN_TOKEN_REFUSED"],
  ]);
  assertSecretNeverSent(cloud, token);
});

describe("a dead address is JOIN_UNREACHABLE within seconds", () => {
  test("a closed port", { timeout: 60_000 }, async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    // A deadline far off: the refusal ends the check, not the deadline (the test's own timeout only bounds a hang).
    const result = await runJoinCheck({ joinAddress: `127.0.0.1:${port}`, token: formatJoinToken({ fingerprint: "a".repeat(64), secret: SECRET }), release: RELEASE, now: () => new Date(), timeoutMs: 600_000 });
    assert.deepEqual(outline(result), [["reachable", false, "JOIN_UNREACHABLE"], ...JOIN_CHECK_NAMES.slice(1).map((name) => [name, false, undefined])]);
    assert.match(
      result.checks[0]?.detail ?? "",
      new RegExp(`^no TLS connection to 127\\.0\\.0\\.1:${port} \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\): check the join address .* then retry$`),
    );
    assert.equal(result.checks[1]?.detail, `not checked: no TLS connection to 127.0.0.1:${port}`);
    assert.equal(joinCheckNext(result.checks), "retryInstall");
  });

  test("a server that accepts TCP and never answers TLS costs the deadline, no more (5 s by default; 0.3 s here)", async (t) => {
    const sockets = new Set<Socket>();
    const blackhole = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    }).listen(0, "127.0.0.1");
    await once(blackhole, "listening");
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      blackhole.close();
    });
    const { port } = blackhole.address() as AddressInfo;
    const result = await runJoinCheck({ joinAddress: `127.0.0.1:${port}`, token: formatJoinToken({ fingerprint: "a".repeat(64), secret: SECRET }), release: RELEASE, now: () => new Date(), timeoutMs: 300 });
    assert.deepEqual(failures(result), ["JOIN_UNREACHABLE"]);
    assert.match(result.checks[0]?.detail ?? "", /^no TLS connection to 127\.0\.0\.1:\d+ \(no TLS handshake within 0\.3 s\): check the join address/);
    assert.equal(sockets.size, 1);
  });
});

test("a cloud that has founded no cluster yet: join-info and the proof fail, the comparisons are not checked", async (t) => {
  const cloud = await startCloud(t, { cluster: undefined, foundedWith: "/nonexistent/node.yaml" });
  const result = await check(cloud);
  assert.deepEqual(outline(result), [
    ["reachable", true, undefined],
    ["fingerprint", true, undefined],
    ["join-info", false, "JOIN_UNREACHABLE"],
    ["cluster", false, undefined],
    ["release", false, undefined],
    ["clock", false, undefined],
    ["token", false, "JOIN_UNREACHABLE"],
  ]);
  assert.match(result.checks[2]?.detail ?? "", /^GET \/v1\/cluster\/join-info at 127\.0\.0\.1:\d+: it answered HTTP 503; expected 200 with \{cluster, release, time\}: is the init node installed/);
  assert.equal(result.checks[3]?.detail, `not checked: GET /v1/cluster/join-info at 127.0.0.1:${cloud.port} gave no usable answer`);
  assert.match(result.checks[6]?.detail ?? "", /answered HTTP 503, expected 204 \(accepted\) or 403 \(refused\)/);
  assert.equal(joinCheckNext(result.checks), "retryInstall");
});

test("a cluster API that stalls or floods is a bounded failure of join-info and of the proof", { timeout: 60_000 }, async (t) => {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "stalling", dnsNames: [], ipAddresses: ["127.0.0.1"] });
  const fingerprint = createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex");
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    if (req.url === "/v1/cluster/join-info") res.writeHead(200).end("x".repeat(100 * 1024));
    // join-check: never answered
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const result = await runJoinCheck({ joinAddress: `127.0.0.1:${port}`, token: formatJoinToken({ fingerprint, secret: SECRET }), release: RELEASE, now: () => new Date(), timeoutMs: 1000 });
  assert.deepEqual(failures(result), ["JOIN_UNREACHABLE", "JOIN_UNREACHABLE"]);
  assert.match(result.checks[2]?.detail ?? "", /^GET \/v1\/cluster\/join-info at 127\.0\.0\.1:\d+: the answer is over 64 KiB: is the init node installed/);
  assert.match(result.checks[6]?.detail ?? "", /^POST \/v1\/cluster\/join-check at 127\.0\.0\.1:\d+: no complete answer within 1 s: retry once the init node answers$/);
  // Bounded by the 1 s deadline the detail names (a request never answered would hang the test, not pass it).
});

test("a malformed token opens no connection and is never quoted", async (t) => {
  const cloud = await startCloud(t);
  const token = `STRATUM1:${cloud.certSha256}:tooshort`;
  const result = await check(cloud, { token });
  assert.deepEqual(outline(result), [...JOIN_CHECK_NAMES.slice(0, 6).map((name) => [name, false, undefined]), ["token", false, "JOIN_TOKEN_REFUSED"]]);
  assert.match(result.checks[6]?.detail ?? "", /^the draft's join token is not a join token \(expected STRATUM1:<fingerprint>:<secret>\): its secret is shorter than 22/);
  assert.ok(!JSON.stringify(result).includes("tooshort"));
  assert.equal(cloud.connections(), 0);
});

test("an IPv6 join address in brackets", async (t) => {
  const cloud = await startReadinessServer({ host: "::1", scenario: "ready", cluster: { name: "lab-1", secret: SECRET }, release: RELEASE }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRNOTAVAIL" || error.code === "EAFNOSUPPORT") return undefined;
    throw error;
  });
  if (!cloud) return t.skip("no IPv6 loopback on this host");
  t.after(() => cloud.close());
  const result = await check(cloud, { joinAddress: `[::1]:${cloud.port}` });
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.checks[0]?.detail, `TLS connection to [::1]:${cloud.port}`);
});

test("an aborted check rejects with the signal's reason", async (t) => {
  const cloud = await startCloud(t);
  const controller = new AbortController();
  const reason = new Error("stopped");
  controller.abort(reason);
  await assert.rejects(check(cloud, { signal: controller.signal }), reason);
});
