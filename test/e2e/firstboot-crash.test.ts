import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { finished, install } from "../helpers/install-rig.ts";
import { harness, tempDir, untilNoBlockers, writeFirstboot } from "../helpers/installer.ts";
import { alive } from "../helpers/processes.ts";

const lab = harness();

/**
 * The first run leaves three children that ignore SIGTERM (one in a session of its own, one in a
 * group of its own, one forked twice), kills its installer with SIGKILL before anything records how
 * it went, and runs on ignoring SIGTERM itself. Later runs finish at once.
 */
const FIRSTBOOT = `#!/bin/sh
d="$(dirname "$0")"
echo $$ >> "$d/firstboots"
[ -e "$d/crashed" ] && { echo "firstboot: done"; exit 0; }
stray='trap "" TERM; echo $$ >> "$0/strays"; while :; do sleep 1; done'
setsid sh -c "$stray" "$d" &
python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp("sh", ["sh", "-c", sys.argv[1], sys.argv[2]])' "$stray" "$d" &
( sh -c "$stray" "$d" & )
while [ "$(cat "$d/strays" 2>/dev/null | wc -l)" -lt 3 ]; do sleep 0.05; done
touch "$d/crashed"
trap '' TERM
kill -9 $PPID
while :; do sleep 1; done
`;

const pids = async (file: string) => (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);

test("kill -9 while firstboot runs, its children scattered over other groups and sessions and ignoring SIGTERM: the restarted installer has killed every one before it answers, and the retry's firstboot runs alone", async () => {
  const folder = await tempDir();
  const stateDir = join(folder, "state");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready", stageMs: 50 });
  lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, FIRSTBOOT);
  const options = {
    stateDir,
    args: ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "30", "--readiness-interval", "0.1"],
  };
  const first = await lab.start(options);
  lab.defer(async () => {
    for (const pid of [...(await pids(join(folder, "firstboots"))), ...(await pids(join(folder, "strays")))]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  });
  await untilNoBlockers(first);
  assert.equal((await first.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  assert.equal((await first.request("/v1/installer/install", { method: "POST" })).status, 202);
  await first.exited;

  const left = [...(await pids(join(folder, "firstboots"))), ...(await pids(join(folder, "strays")))];
  assert.equal(left.length, 4);
  for (const pid of left) assert.equal(await alive(pid), true, `${pid} should have outlived its installer`);

  const second = await lab.start(options);
  for (const pid of left) assert.equal(await alive(pid), false, `${pid} still runs after the restart`);
  assert.match(second.banner, /stopped \d+ processes the interrupted firstboot of attempt 1 left running/);

  await untilNoBlockers(second);
  assert.equal((await install(second)).attempt, 2);
  const verdict = await finished(second, 2);
  assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
  assert.equal((await pids(join(folder, "firstboots"))).length, 2);
});

test("a firstboot that exits 0 as its installer is killed (kill -9) before its exit is seen: the restarted installer's verdict says firstboot may have finished, and what to check before a retry runs it again", async () => {
  const folder = await tempDir();
  const stateDir = join(folder, "state");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready", stageMs: 50 });
  lab.defer(() => readiness.close());
  // Its work done, it kills its installer, then exits 0: no record of its exit can be written.
  const firstboot = await writeFirstboot(folder, `#!/bin/sh\necho "firstboot: done"\nkill -9 $PPID\nexit 0\n`);
  const options = { stateDir, args: ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "30", "--readiness-interval", "0.1"] };
  const first = await lab.start(options);
  await untilNoBlockers(first);
  assert.equal((await first.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  assert.equal((await first.request("/v1/installer/install", { method: "POST" })).status, 202);
  await first.exited;

  const second = await lab.start(options);
  assert.match(second.banner, /attempt 1 was interrupted at firstboot, which may have finished \(it was no longer running\); its verdict says retryInstall: check the node before retrying/);
  const verdict = (await second.request("/v1/installer/install/verdict")).json;
  assert.deepEqual([verdict.code, verdict.step, verdict.next], ["INTERRUPTED", "firstboot", "retryInstall"]);
  assert.match(verdict.message, /firstboot may have finished, even successfully, before the installer stopped; .* check on the node whether firstboot completed/);
  const report = (await second.request("/v1/installer/install/report")).json;
  assert.equal(report.steps.find((s: { step: string }) => s.step === "firstboot").message, verdict.message);
});
