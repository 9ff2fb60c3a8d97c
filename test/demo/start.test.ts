import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import https from "node:https";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { httpsCall, ROOT, runCli, tempDir, waitFor, type Reply } from "../helpers/installer.ts";

/** `npm start` without its build step, on free ports and in a temp demo folder; stopped when the test ends. */
interface Demo {
  stdout: () => string;
  code: string;
  api: string;
  control: string;
  stateDir: string;
  call(path: string, method?: string, body?: object): Promise<Reply>;
}

async function startDemo(t: TestContext, demoDir: string, env: Record<string, string> = {}): Promise<Demo> {
  const proc = spawn(process.execPath, ["--import", "tsx", "demo/start.ts"], {
    cwd: ROOT,
    env: { ...process.env, STRATUM_LISTEN: "127.0.0.1:0", DEMO_CLOUD_PORT: "0", DEMO_DIR: demoDir, FIRSTBOOT_DELAY: "0.01", STRATUM_READINESS_INTERVAL: "0.2", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
    await exited;
  };
  t.after(stop);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("not within 90 s")), 90_000);
    proc.stdout.on("data", () => {
      if (!/^CONTROL=.*\n/m.test(stdout)) return;
      clearTimeout(timer);
      resolve();
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`it exited with ${code}`));
    });
  }).catch((err: Error) => {
    throw new Error(`the demo did not print its lines to paste (${err.message})\nstdout: ${stdout}\nstderr: ${stderr}`);
  });
  const line = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(stdout)?.[1] ?? assert.fail(`no ${name}= line in\n${stdout}`);
  const code = line("CODE");
  const api = line("API");
  return {
    stdout: () => stdout,
    code,
    api,
    control: line("CONTROL"),
    stateDir: /State dir:\s+(.*)$/m.exec(stdout)![1]!,
    call: (path, method = "GET", body) => httpsCall(`${api}${path}`, { method, body, code }),
  };
}

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

/** The verdict of attempt N once it has one (409 INSTALL_RUNNING while it runs). */
async function verdictOf(demo: Demo, attempt: number) {
  return waitFor(
    `the verdict of attempt ${attempt}`,
    async () => {
      const reply = await demo.call(`/install/verdict?attempt=${attempt}`);
      return reply.status === 200 ? reply.json : undefined;
    },
    90_000,
  );
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
});
