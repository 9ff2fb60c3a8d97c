import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { bannerWithin, DEMO_HOST_FACTS, harness, httpsRaw, runCli, startInstaller, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";
import { fill, mountTmpfs, noTmpfs, tmpfsFor, unmount } from "../helpers/full-disk.ts";

const run = promisify(execFile);

/** Prints a line every 50 ms until READY-TO-END appears beside it, so writes happen while the disk is full. */
const FIRSTBOOT = `#!/bin/sh
dir="$(dirname "$0")"
echo "firstboot: started"
i=0
while [ ! -e "$dir/READY-TO-END" ]; do i=$((i+1)); echo "firstboot: working $i"; sleep 0.05; done
echo "firstboot: done"
`;

describe("a full or read-only state dir (SPEC §4: 507, nothing half-changed, recovery without restart)", { skip: noTmpfs }, () => {
  let folder: string;
  let mount: string;
  let mountProblem: string | undefined;
  let readiness: ReadinessServer;
  let installer: RunningInstaller;
  const stateDir = () => join(mount, "state");

  before(async () => {
    folder = await tempDir();
    mount = join(folder, "mnt");
    mountProblem = await mountTmpfs(mount);
    if (mountProblem) return;
    readiness = await startReadinessServer({ port: 0, scenario: "ready", stageMs: 100 });
    const firstboot = await writeFirstboot(folder, FIRSTBOOT);
    installer = await startInstaller({
      stateDir: stateDir(),
      args: ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "20", "--readiness-interval", "0.1"],
    });
    await untilNoBlockers(installer);
  });

  after(async () => {
    if (mountProblem) return;
    await installer?.kill9();
    await readiness?.close();
    await unmount(mount);
  });

  const alive = () => assert.equal(installer.proc.exitCode, null, `the installer exited:\n${installer.output().stderr}`);
  const storeDraft = async () => JSON.parse(await readFile(join(stateDir(), "installer.json"), "utf8")).draft;

  test("a start on a full state dir exits 1 naming the state dir and what to do, without a stack trace, and leaves no file of its own behind", async (t) => {
    if (mountProblem) return t.skip(mountProblem);
    const other = join(mount, "state-2");
    await mkdir(other, { mode: 0o700 });
    const free = fill(mount);
    try {
      const started = await runCli(["--listen", "127.0.0.1:0", "--state-dir", other, "--host-facts", DEMO_HOST_FACTS]);
      assert.equal(started.code, 1, started.stderr);
      assert.equal(started.stderr, `installer: the state dir ${other} cannot be written (ENOSPC: no space left on its file system): free space on its file system, then start the installer again\n`);
      assert.deepEqual(await readdir(other), []);
    } finally {
      await free();
    }
    alive();
  });

  test("a draft that cannot be stored answers 507 naming the state dir; memory and disk keep the previous draft", async (t) => {
    if (mountProblem) return t.skip(mountProblem);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
    const before = await installer.request("/v1/installer/config");
    const onDisk = await storeDraft();
    const free = fill(mount);
    try {
      const refused = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, hostname: "node-02" } });
      assertProblem(refused, 507, "INSUFFICIENT_STORAGE", { detail: new RegExp(stateDir().replaceAll("/", "\\/")) });
      assert.match(refused.json.detail, /free/i);
      const logged = installer.output().stderr.split("\n").filter(Boolean).map((line) => JSON.parse(line)).find((entry) => entry.message === "state dir write failed");
      assert.deepEqual({ ...logged, time: undefined }, { time: undefined, level: "error", message: "state dir write failed", requestId: refused.json.requestId, client: "127.0.0.1", method: "PUT", path: "/v1/installer/config", detail: refused.json.detail });
      const patched = await installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-03" } });
      assertProblem(patched, 507, "INSUFFICIENT_STORAGE");
      const now = await installer.request("/v1/installer/config");
      assert.deepEqual(now.json, before.json);
      assert.equal(now.headers.etag, before.headers.etag);
      assert.deepEqual(await storeDraft(), onDisk);
      assert.deepEqual((await readdir(stateDir())).filter((n) => n.endsWith(".tmp")), [], "no temp file is left taking space");
    } finally {
      await free();
    }
    const stored = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, hostname: "node-02" } });
    assert.equal(stored.status, 200, "once space frees, the same request succeeds with no restart");
    assert.equal((await storeDraft()).config.hostname, "node-02");
    await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    alive();
  });

  test("an install that cannot record its attempt does not start: 507, phase and attempts as before", async (t) => {
    if (mountProblem) return t.skip(mountProblem);
    const free = fill(mount);
    try {
      assertProblem(await installer.request("/v1/installer/install", { method: "POST" }), 507, "INSUFFICIENT_STORAGE");
      const status = (await installer.request("/v1/installer/status")).json;
      assert.equal(status.phase, "configuring");
      assert.equal(status.attempt, 0);
      assert.deepEqual((await installer.request("/v1/installer/install/attempts")).json, { attempts: [] });
      assertProblem(await installer.request("/v1/installer/install/verdict"), 404, "NOT_FOUND");
      const events = await readdir(join(stateDir(), "events")).catch(() => []);
      assert.deepEqual(events, [], "no event log of an attempt that did not start");
    } finally {
      await free();
    }
    alive();
  });

  test("wrong codes on a full disk still count and lock out (401, then 429), never 500; the right code from elsewhere still works", async (t) => {
    if (mountProblem) return t.skip(mountProblem);
    const free = fill(mount);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const reply = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { code: "WRNG-CODE-0000", localAddress: "127.0.0.9" });
        statuses.push(reply.status);
      }
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
      const locked = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { code: installer.code, localAddress: "127.0.0.9" });
      assertProblem(locked, 429, "TOO_MANY_ATTEMPTS");
      assert.equal((await installer.request("/v1/installer/status")).status, 200);
    } finally {
      await free();
    }
    alive();
  });

  test("a read-only state dir answers 507 too, and recovers when it is writable again", async (t) => {
    if (mountProblem) return t.skip(mountProblem);
    await run("mount", ["-o", "remount,ro", mount]);
    try {
      const refused = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, hostname: "node-04" } });
      assertProblem(refused, 507, "INSUFFICIENT_STORAGE");
      assertProblem(await installer.request("/v1/installer/install", { method: "POST" }), 507, "INSUFFICIENT_STORAGE");
    } finally {
      await run("mount", ["-o", "remount,rw", mount]);
    }
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
    alive();
  });

  test("the disk fills during an attempt: it fails STATE_WRITE_FAILED (retryInstall) at once, is recorded once space frees, and a retry installs", async (t) => {
    if (mountProblem) return t.skip(mountProblem);
    const started = await installer.request("/v1/installer/install", { method: "POST" });
    assert.equal(started.status, 202, started.text);
    const attempt = started.json.attempt as number;
    await waitFor("firstboot to run", async () => ((await installer.request("/v1/installer/status")).json.step === "firstboot" ? true : undefined));
    const free = fill(mount);
    let verdict: any;
    try {
      verdict = await waitFor("the attempt to fail", async () => {
        const reply = await installer.request(`/v1/installer/install/verdict?attempt=${attempt}`);
        return reply.status === 200 ? reply.json : undefined;
      });
      assert.equal(verdict.outcome, "failed");
      assert.equal(verdict.code, "STATE_WRITE_FAILED");
      assert.equal(verdict.next, "retryInstall");
      assert.match(verdict.message, new RegExp(stateDir().replaceAll("/", "\\/")));
      const status = (await installer.request("/v1/installer/status")).json;
      assert.equal(status.phase, "failed", "never installing with nothing running");
      const again = await installer.request("/v1/installer/install", { method: "POST" });
      assertProblem(again, 507, "INSUFFICIENT_STORAGE", { what: "a retry while the disk is still full does not start" });
    } finally {
      await free();
    }
    await waitFor("the verdict to reach the disk", async () => {
      const store = JSON.parse(await readFile(join(stateDir(), "installer.json"), "utf8"));
      return store.attempts.find((a: any) => a.attempt === attempt)?.verdict?.code === "STATE_WRITE_FAILED" ? true : undefined;
    }, 30_000);
    const events = (await readFile(join(stateDir(), `events/attempt-${attempt}.jsonl`), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(events.at(-1).type, "attempt.finished");
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "every event once, in order, none torn");

    await writeFile(join(folder, "READY-TO-END"), "");
    const retry = await installer.request("/v1/installer/install", { method: "POST" });
    assert.equal(retry.status, 202, retry.text);
    const done = await waitFor("the retry to finish", async () => {
      const reply = await installer.request(`/v1/installer/install/verdict?attempt=${retry.json.attempt}`);
      return reply.status === 200 ? reply.json : undefined;
    }, 30_000);
    assert.equal(done.outcome, "succeeded", JSON.stringify(done));
    alive();
    assert.doesNotMatch(installer.output().stderr, /unhandled/i, "no unhandled rejection was logged");
  });
});

describe("a first start on a state dir's file system with a few blocks left (ENOSPC at each of its writes in turn)", { skip: noTmpfs }, () => {
  const { spawn } = harness();

  test("each start either listens or exits 1 saying what to do, its lock released; the start after space frees says nothing of an earlier code, pair or lock", { timeout: 240_000 }, async (t) => {
    const folder = await tempDir();
    const mount = join(folder, "mnt");
    if (!(await tmpfsFor(t, mount, "512k"))) return;
    const payload = join(folder, "payload");
    await makePayload(payload);
    let listened = false;
    for (let leave = 0; !listened; leave++) {
      assert.ok(leave < 32, "a first start listens with 32 blocks free");
      const stateDir = join(mount, `state-${leave}`);
      await mkdir(stateDir, { mode: 0o700 });
      const free = fill(mount, { leave });
      const first = await spawn({ stateDir, payload });
      listened = (await bannerWithin(first, 30)) !== undefined;
      await first.stop();
      await free();
      const { stderr } = first.output();
      if (!listened) {
        assert.equal(await first.exited, 1, `${leave} blocks free: ${stderr}`);
        const said = stderr.split("\n").filter((line) => line.startsWith("installer: "));
        assert.deepEqual(said, [`installer: the state dir ${stateDir} cannot be written (ENOSPC: no space left on its file system): free space on its file system, then start the installer again`], `${leave} blocks free: ${stderr}`);
        assert.ok(!(await readdir(stateDir)).includes("installer.lock"), `${leave} blocks free: the lock of a start that failed is left behind`);
      }
      const again = await spawn({ stateDir, payload });
      const banner = await bannerWithin(again, 30);
      await again.stop();
      assert.ok(banner, `${leave} blocks free: the start after space freed did not listen: ${again.output().stderr}`);
      assert.deepEqual(banner.split("\n").filter((line) => line.includes("NOTICE")), [], `${leave} blocks free: ${listened ? "a second start" : "the start after a failed first one"} has nothing to tell`);
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

test("a start on a state dir that is on a read-only file system and not yet 0700 (made by an image build's mkdir -p) exits 1 naming the state dir and what to do, not a bare EROFS from chmod", { skip: noTmpfs }, async (t) => {
  const mount = join(await tempDir(), "mnt");
  if (!(await tmpfsFor(t, mount, "64k"))) return;
  const stateDir = join(mount, "state");
  await mkdir(stateDir, { mode: 0o755 });
  await run("chmod", ["755", stateDir]);
  await run("mount", ["-o", "remount,ro", mount]);
  const started = await runCli(["--listen", "127.0.0.1:0", "--state-dir", stateDir, "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(started.code, 1, started.stderr);
  assert.equal(started.stderr, `installer: the state dir ${stateDir} cannot be written (EROFS: its file system is read-only): remount its file system read-write, or give the installer another --state-dir, then start the installer again\n`);
});
