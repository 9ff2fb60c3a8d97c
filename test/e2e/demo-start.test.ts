import assert from "node:assert/strict";
import https from "node:https";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { startDemo, verdictOf, type Demo } from "../helpers/demo.ts";
import { ROOT, runCli, tempDir, waitFor } from "../helpers/installer.ts";

function postJson(url: string, body: object): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: "POST", rejectUnauthorized: false, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The README's draft: PUT half of it, then the merge patch. */
async function fillTheDraft(demo: Demo): Promise<void> {
  assert.equal((await demo.call("/config", "PUT", { mode: "single-node", hostname: "node-01", network: { interface: "eno1" } })).status, 200);
  const patched = await demo.call("/config", "PATCH", {
    network: { address: "10.20.0.11/24", gateway: "10.20.0.1", dns: ["10.20.0.2"] },
    admin: { sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example"] },
  });
  assert.equal(patched.json.valid, true, patched.text);
}

describe("npm start (demo/start.ts): the README's walk-throughs", () => {
  test("each scenario has its own state dir; after the banner it prints CODE, API, H and CONTROL lines that work", async (t) => {
    const demoDir = await tempDir("stratum-demo-");
    await makePayload(join(demoDir, "payload")); // made once: three demos starting at once would each write it
    const demos = await Promise.all([startDemo(t, demoDir), startDemo(t, demoDir, { DEMO_SCENARIO: "never" }), startDemo(t, demoDir, { DEMO_UNATTENDED: "1" })]);
    assert.deepEqual(
      demos.map((d) => d.stateDir),
      [join(demoDir, "state"), join(demoDir, "never/state"), join(demoDir, "unattended/state")],
    );
    for (const demo of demos) {
      const out = demo.stdout();
      assert.ok(out.indexOf("\nCODE=") > out.lastIndexOf("State dir:"), `the lines come after the banner:\n${out}`);
      assert.match(out, /^H="Authorization: Bearer \$CODE"$/m);
      assert.match(demo.api, /^https:\/\/127\.0\.0\.1:\d+\/v1\/installer$/);
      assert.match(demo.control, /^https:\/\/127\.0\.0\.1:\d+\/control\/scenario$/);
      assert.equal((await runCli(["code", "--state-dir", demo.stateDir])).stdout.trim(), demo.code, "the README's `code --state-dir` line gives the same code");
      assert.equal((await demo.call("/status")).status, 200);
    }
    assert.equal(new Set(demos.map((d) => d.code)).size, 3);
  });

  test("DEMO_SCENARIO=never: READINESS_TIMEOUT, then the scenario switch and a recheck succeed", async (t) => {
    const demo = await startDemo(t, await tempDir("stratum-demo-"), { DEMO_SCENARIO: "never", STRATUM_READINESS_TIMEOUT: "3" });
    await fillTheDraft(demo);
    assert.equal((await demo.call("/install", "POST")).status, 202);
    const failed = await verdictOf(demo, 1);
    assert.deepEqual([failed.outcome, failed.code, failed.next], ["failed", "READINESS_TIMEOUT", "recheckReadiness"]);
    assert.match(failed.message, /ceph/);
    assert.deepEqual(await postJson(demo.control, { scenario: "ready" }), { status: 200, json: { scenario: "ready" } });
    const recheck = await demo.call("/install/recheck-readiness", "POST");
    assert.equal(recheck.status, 202, recheck.text);
    assert.equal((await verdictOf(demo, recheck.json.attempt)).outcome, "succeeded");
  });

  test("DEMO_UNATTENDED=1: the banner says what the node.yaml waits for, and it starts by itself", async (t) => {
    const demo = await startDemo(t, await tempDir("stratum-demo-"), { DEMO_UNATTENDED: "1" });
    const notice = /NOTICE: took .* as the draft for an unattended install: (.*)$/m.exec(demo.stdout())?.[1] ?? assert.fail(demo.stdout());
    // The payload check usually still runs at the take-over; should it have ended, the install started at once.
    if (notice !== "started (attempt 1)") {
      assert.equal(notice, "waiting for the payload check (PAYLOAD_VERIFYING); it starts by itself once the payload is verified");
    }
    const status = await waitFor("unattended.state started", async () => {
      const s = (await demo.call("/status")).json;
      return s.unattended?.state === "started" ? s : undefined;
    }, 60_000);
    assert.equal(status.unattended.attempt, 1);
    assert.equal((await verdictOf(demo, 1)).outcome, "succeeded");
  });

  test("the lines to paste come once the payload is checked: an install pasted at once is not refused PAYLOAD_VERIFYING", async (t) => {
    const demoDir = await tempDir("stratum-demo-");
    // Big enough that its checksums take a while on any machine.
    await makePayload(join(demoDir, "payload"), { images: [{ file: "images/stratum-base.tar", bytes: 96 * 1024 * 1024 }, { file: "images/ceph.tar", bytes: 32 * 1024 }] });
    const demo = await startDemo(t, demoDir);
    const status = await demo.call("/status");
    assert.deepEqual(status.json.blockers ?? [], [], status.text);
    assert.match(demo.stdout(), /payload checked/, demo.stdout());
  });
});

test("npm start -- --nodes 1 on a port that is taken exits 1 saying which node, its last line and how to use free ports, never 0 in silence", { timeout: 60_000 }, async (t) => {
  const taken = createServer().listen(0, "127.0.0.1");
  await once(taken, "listening");
  t.after(() => taken.close());
  const port = (taken.address() as AddressInfo).port;
  const run = spawnSync(process.execPath, ["--import", "tsx", "demo/start.ts", "--nodes", "1"], {
    cwd: ROOT,
    env: { ...process.env, STRATUM_LISTEN: `127.0.0.1:${port}`, DEMO_CLOUD_PORT: "0", DEMO_DIR: await tempDir("stratum-demo-taken-") },
    encoding: "utf8",
    timeout: 50_000,
  });
  assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /^demo: node-01's installer exited \(\d+\) before its banner: .*; the demo takes no --listen: start it with STRATUM_LISTEN=127\.0\.0\.1:0 DEMO_CLOUD_PORT=0 to use free ports; its log: .*node-01\.log$/m);
});
