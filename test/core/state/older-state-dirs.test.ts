/**
 * State dirs older installers wrote (test/fixtures/older-state-dirs/, each named for the day and commit of the bundle
 * that wrote it and the state it was left in), taken over by this one as on a node whose installer.js was replaced: it
 * serves the draft, the attempts, their events, verdicts and reports as they are, and an attempt the older installer
 * left running is marked INTERRUPTED as one of its own would be, firstboot not run again.
 */
import assert from "node:assert/strict";
import { cp, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { inProcessApp } from "../../helpers/app.ts";
import { ROOT, tempDir, writeFirstboot } from "../../helpers/installer.ts";

const FIXTURES = join(ROOT, "test/fixtures/older-state-dirs");

/** The fixture copied to a state dir of its own, and an installer on it whose firstboot says when it runs. */
async function takeOver(t: import("node:test").TestContext, name: string) {
  const folder = await tempDir("stratum-older-");
  const stateDir = join(folder, "state");
  await cp(join(FIXTURES, name), stateDir, { recursive: true });
  const stored = JSON.parse(await readFile(join(stateDir, "installer.json"), "utf8"));
  const firstboot = await writeFirstboot(folder, `#!/bin/sh\necho run >> "$(dirname "$0")/runs"\n`);
  const installer = await inProcessApp(t, { args: ["--state-dir", stateDir, "--firstboot", firstboot] });
  const runs = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  return { installer, stored, stateDir, runs };
}

const linesOf = async (file: string) => (await readFile(file, "utf8")).split("\n").filter(Boolean).length;

for (const name of ["2026-12-03-d7cfb9d-draft"]) {
  test(`${name}: the draft an older installer saved is served as it was, no attempt made up`, async (t) => {
    const { installer, stored, stateDir } = await takeOver(t, name);
    const draft = await installer.request("/v1/installer/config");
    assert.equal(draft.status, 200, draft.text);
    assert.deepEqual(draft.json.config, stored.draft.config);
    assert.equal(draft.json.valid, true, JSON.stringify(draft.json.errors));
    assert.deepEqual((await installer.request("/v1/installer/install/attempts")).json.attempts, []);
    assert.deepEqual((await readdir(stateDir)).filter((f) => f.includes("corrupt")), []);
  });
}

for (const name of ["2026-12-03-d7cfb9d-failed", "2026-12-04-48603ae-succeeded"]) {
  test(`${name}: an attempt an older installer finished is served as it ended (attempts, verdict, report, every event), the draft kept`, async (t) => {
    const { installer, stored, stateDir, runs } = await takeOver(t, name);
    const [attempt] = stored.attempts;
    const attempts = await installer.request("/v1/installer/install/attempts");
    assert.equal(attempts.status, 200, attempts.text);
    assert.deepEqual(
      attempts.json.attempts.map((a: any) => [a.attempt, a.state, a.verdict]),
      [[1, attempt.state, attempt.verdict]],
    );
    assert.deepEqual((await installer.request("/v1/installer/install/verdict?attempt=1")).json, attempt.verdict);
    const report = await installer.request("/v1/installer/install/report?attempt=1");
    assert.equal(report.status, 200, report.text);
    assert.deepEqual(report.json.firstbootTail, attempt.firstbootTail);
    const events = await installer.request("/v1/installer/install/events?attempt=1");
    assert.equal(events.status, 200, events.text);
    assert.equal(events.json.finished, true);
    assert.equal(events.json.events.length, await linesOf(join(stateDir, "events/attempt-1.jsonl")));
    assert.equal(events.json.events.at(-1).type, "attempt.finished");
    assert.deepEqual((await installer.request("/v1/installer/config")).json.config, stored.draft.config);
    assert.equal(await runs(), 0);
  });
}

// Stopped (SIGTERM) or killed (kill -9) as firstboot ran: the group the store names is gone by this start (the fixture's
// pid is above Linux's PID_MAX_LIMIT), so firstboot may have finished; the verdict says to check the node before a retry.
for (const name of ["2026-12-03-d7cfb9d-stopped", "2026-12-04-48603ae-killed", "2026-12-06-684a982-killed"]) {
  test(`${name}: an attempt an older installer left running at firstboot is marked INTERRUPTED as this one's own, its events finished, the draft kept, firstboot not run`, async (t) => {
    const { installer, stored, stateDir, runs } = await takeOver(t, name);
    const before = await linesOf(join(FIXTURES, name, "events/attempt-1.jsonl"));
    const verdict = await installer.request("/v1/installer/install/verdict?attempt=1");
    assert.equal(verdict.status, 200, verdict.text);
    assert.deepEqual([verdict.json.outcome, verdict.json.step, verdict.json.code, verdict.json.next], ["failed", "firstboot", "INTERRUPTED", "retryInstall"]);
    assert.match(verdict.json.message, /firstboot may have finished/);
    const events = await installer.request("/v1/installer/install/events?attempt=1");
    assert.equal(events.json.finished, true);
    assert.equal(events.json.events.length > before, true);
    assert.deepEqual(events.json.events.slice(0, before).map((e: any) => e.seq), Array.from({ length: before }, (_, i) => i + 1));
    assert.equal(events.json.events.at(-1).type, "attempt.finished");
    const status = await installer.request("/v1/installer/status");
    assert.deepEqual([status.json.phase, status.json.attempt], ["failed", 1]);
    assert.deepEqual((await installer.request("/v1/installer/config")).json.config, stored.draft.config);
    const onDisk = JSON.parse(await readFile(join(stateDir, "installer.json"), "utf8"));
    assert.equal(onDisk.attempts[0].state, "failed");
    assert.equal(onDisk.attempts[0].firstbootGroup, undefined);
    assert.equal(await runs(), 0);
  });
}
