import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runJoinCheck } from "../../core/cluster/join-check.ts";
import { joinProof, newNonce } from "../../core/cluster/join-proof.ts";
import { formatJoinToken, generateSecret } from "../../core/cluster/join-token.ts";
import { startReadinessServer } from "../../demo/readiness-server.ts";

interface Reply {
  status: number;
  body: string;
}

function call(base: string, path: string, method = "GET", body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, base), { method, rejectUnauthorized: false, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("join-info reports the cluster, the release and the cloud's clock, offset as asked", async (t) => {
  const cloud = await startReadinessServer({ cluster: { name: "lab-1", secret: generateSecret() }, release: "2026.11.0", clockOffsetMs: -60_000 });
  t.after(() => cloud.close());
  const before = Date.now();
  const reply = await call(cloud.url, "/v1/cluster/join-info");
  const after = Date.now();
  const info = JSON.parse(reply.body) as { cluster: string; release: string; time: string };
  assert.equal(reply.status, 200);
  assert.deepEqual({ cluster: info.cluster, release: info.release }, { cluster: "lab-1", release: "2026.11.0" });
  // The cloud read its clock between the request and the answer, however long those took.
  const time = Date.parse(info.time);
  assert.ok(before - 60_000 <= time && time <= after - 60_000, `${info.time} is not a minute behind ${new Date(before).toISOString()}…${new Date(after).toISOString()}`);
});

test("join-check answers 204 to a proof of the secret, 403 to another or a replayed one, 400 to a malformed body", async (t) => {
  const secret = generateSecret();
  const cloud = await startReadinessServer({ cluster: { name: "lab-1", secret } });
  t.after(() => cloud.close());
  const post = (body: unknown) => call(cloud.url, "/v1/cluster/join-check", "POST", JSON.stringify(body)).then((r) => r.status);
  const nonce = newNonce();
  assert.equal(await post({ nonce, proof: joinProof(secret, nonce) }), 204);
  assert.equal(await post({ nonce, proof: joinProof(secret, nonce) }), 403);
  const other = newNonce();
  assert.equal(await post({ nonce: other, proof: joinProof(generateSecret(), other) }), 403);
  assert.equal(await post({ nonce: "short", proof: joinProof(secret, "short") }), 400);
  assert.equal(await post({ nonce: newNonce() }), 400);
  assert.equal(await call(cloud.url, "/v1/cluster/join-check", "POST", "not json").then((r) => r.status), 400);
  assert.equal(await call(cloud.url, "/v1/cluster/join-check", "POST", "x".repeat(64 * 1024 + 1)).then((r) => r.status), 413);
});

test("founded with a node.yaml, the cloud learns its cluster once firstboot wrote it, reading it on each request", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "cloud-join-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const nodeYaml = join(dir, "etc/stratum/node.yaml");
  const cloud = await startReadinessServer({ foundedWith: nodeYaml, release: "2026.11.0" });
  t.after(() => cloud.close());
  const notYet = await call(cloud.url, "/v1/cluster/join-info");
  assert.equal(notYet.status, 503);
  assert.match(notYet.body, /founded no cluster yet \(no cluster\.name and cluster\.join_token in .*node\.yaml\): install the init node first/);

  const secret = generateSecret();
  await mkdir(join(dir, "etc/stratum"), { recursive: true });
  await writeFile(nodeYaml, `mode: ha-init\nhostname: node-01\ncluster:\n  name: lab-1\n  join_token: ${secret}\n`);
  const token = formatJoinToken({ fingerprint: cloud.certSha256, secret });
  const result = await runJoinCheck({ joinAddress: `127.0.0.1:${cloud.port}`, token, clusterName: "lab-1", release: "2026.11.0", now: () => new Date() });
  assert.equal(result.ok, true, JSON.stringify(result.checks));

  await writeFile(nodeYaml, `mode: ha-init\ncluster:\n  name: lab-1\n  join_token: ${generateSecret()}\n`);
  const stale = await runJoinCheck({ joinAddress: `127.0.0.1:${cloud.port}`, token, release: "2026.11.0", now: () => new Date() });
  assert.deepEqual(stale.checks.filter((c) => c.code).map((c) => c.code), ["JOIN_TOKEN_REFUSED"]);
});

test("the cloud logs every request it received with its headers and body", async (t) => {
  const cloud = await startReadinessServer({ scenario: "ready" });
  t.after(() => cloud.close());
  await call(cloud.url, "/v1/readiness");
  await call(cloud.url, "/control/scenario", "POST", JSON.stringify({ scenario: "never" }));
  const received = cloud.received();
  assert.deepEqual(received.map((r) => [r.method, r.path, r.body]), [
    ["GET", "/v1/readiness", ""],
    ["POST", "/control/scenario", '{"scenario":"never"}'],
  ]);
  assert.equal(received[1]?.headers["content-type"], "application/json");
});
