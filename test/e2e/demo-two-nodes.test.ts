import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { startDemo, verdictOf } from "../helpers/demo.ts";
import { tempDir } from "../helpers/installer.ts";
import { hasCurl, runWalkThrough, walkThrough } from "../helpers/walk-through.ts";

const GUIDE = "docs/curl.md";
const SECTION = "## A two-node cluster (the join check)";

test(`${GUIDE}'s two-node cluster walk-through, as written, against DEMO_NODE=1 and DEMO_NODE=2 demos`, { skip: !hasCurl && "curl is not installed (the walk-through's commands use it)" }, async (t) => {
  const demoDir = await tempDir("stratum-demo-cluster-");
  const init = await startDemo(t, demoDir, { DEMO_NODE: "1" });
  const cloudPort = new URL(init.control).port;
  const join2 = await startDemo(t, demoDir, { DEMO_NODE: "2", DEMO_CLOUD_PORT: cloudPort });
  assert.deepEqual([init.stateDir, join2.stateDir], [join(demoDir, "node-1/state"), join(demoDir, "node-2/state")]);
  assert.match(join2.stdout(), /^H2="Authorization: Bearer \$CODE2"$/m);
  assert.equal(join2.control, init.control, "node 2's cloud is node 1's");
  assert.equal(await readFile(join(demoDir, "node-2/payload/release.yaml"), "utf8"), await readFile(join(demoDir, "payload/release.yaml"), "utf8"), "node 2 has its own copy of the release");

  const script = await walkThrough(GUIDE, SECTION, [
    ["127.0.0.1:9443", new URL(init.api).host],
    ["127.0.0.1:9444", new URL(join2.api).host],
    ["127.0.0.1:8443", `127.0.0.1:${cloudPort}`],
    [".demo/", `${demoDir}/`],
  ]);
  const { stdout, stderr } = await runWalkThrough(script);
  const said = `stdout:\n${stdout}\nstderr:\n${stderr}`;
  assert.match(stdout, /"code":"NOT_INSTALLED"/, said);
  assert.match(stderr, /node-2\/etc.*No such file or directory/, "the failed join wrote nothing");

  assert.equal((await verdictOf(init, 1)).outcome, "succeeded");
  const { token, joinAddress, cluster } = (await init.call("/cluster/join-token")).json;
  assert.deepEqual([joinAddress, cluster], ["10.20.0.10", "lab-1"]);
  assert.ok(stdout.includes(`"token":"${token}"`), "the walk-through printed the node's token");

  const refused = await verdictOf(join2, 1);
  assert.deepEqual([refused.outcome, refused.code, refused.next], ["failed", "PREFLIGHT_FAILED", "fixConfig"], JSON.stringify(refused));
  assert.deepEqual(refused.checks.filter((c: { code?: string }) => c.code).map((c: { code: string }) => c.code), ["JOIN_TOKEN_REFUSED"]);
  assert.match(stdout, /\{"ok":false,"checks":\[.*"code":"JOIN_TOKEN_REFUSED"/, "the check on demand showed the refusal first");
  assert.match(stdout, /\{"ok":true,"checks":\[/, "and then passed with the right token");
  const joined = await verdictOf(join2, 2);
  assert.equal(joined.outcome, "succeeded", JSON.stringify(joined));
  await access(join(demoDir, "node-2/etc/stratum/node.yaml"));

  // The token pins the demo cloud's certificate, which is kept: after node 1's restart it still joins.
  const kept = JSON.parse(await readFile(join(demoDir, "cloud-tls.json"), "utf8")) as { certPem: string };
  assert.equal(token.split(":")[1], createHash("sha256").update(new X509Certificate(kept.certPem).raw).digest("hex"));
  await init.stop();
  const restarted = await startDemo(t, demoDir, { DEMO_NODE: "1", DEMO_CLOUD_PORT: cloudPort });
  assert.equal((await restarted.call("/cluster/join-token")).json.token, token);
  const check = await join2.call("/cluster/join-check", "POST");
  assert.equal(check.json.ok, true, check.text);
});
