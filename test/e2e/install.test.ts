import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startReadinessServer, type ReadinessServer, type Scenario } from "../../demo/readiness-server.ts";
import { harness, tempDir, untilNoBlockers, untilStepStartedOnDisk, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";

const lab = harness();

interface Rig {
  installer: RunningInstaller;
  readiness: ReadinessServer;
}

/** A firstboot that runs for FIRSTBOOT_SLEEP seconds, long enough to be killed during. */
const FIRSTBOOT = `#!/bin/sh
sleep \${FIRSTBOOT_SLEEP:-0}
`;

async function rig(options: { scenario?: Scenario; timeout?: number; stateDir?: string; folder?: string; readiness?: ReadinessServer; env?: Record<string, string> } = {}): Promise<Rig> {
  const folder = options.folder ?? (await tempDir());
  const readiness = options.readiness ?? (await startReadinessServer({ port: 0, scenario: options.scenario ?? "ready", stageMs: 200 }));
  if (!options.readiness) lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, FIRSTBOOT);
  const installer = await lab.start({
    stateDir: options.stateDir ?? join(folder, "state"),
    env: options.env,
    args: [
      "--firstboot", firstboot,
      "--node-yaml", join(folder, "etc/stratum/node.yaml"),
      "--readiness-url", readiness.url,
      "--readiness-timeout", String(options.timeout ?? 10),
      "--readiness-interval", "0.1",
    ],
  });
  await untilNoBlockers(installer);
  return { installer, readiness };
}

async function putDraft(installer: RunningInstaller, draft: object = VALID_DRAFT) {
  const reply = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.valid, true, JSON.stringify(reply.json.errors));
}

async function install(installer: RunningInstaller) {
  const reply = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(reply.status, 202, reply.text);
  return reply.json as { attempt: number; phase: string; eventsUrl: string };
}

describe("crash recovery", () => {
  for (const [step, next, scenario] of [
    ["firstboot", "retryInstall", "ready"],
    ["readiness", "recheckReadiness", "never"],
  ] as const) {
    test(`kill -9 during ${step}: the next start marks the attempt INTERRUPTED with next ${next}`, async () => {
      const folder = await tempDir();
      const stateDir = join(folder, "state");
      const first = await rig({ folder, stateDir, scenario, timeout: 60, env: { FIRSTBOOT_SLEEP: step === "firstboot" ? "30" : "0" } });
      await putDraft(first.installer);
      await install(first.installer);
      // Its event on disk, not only the store's word: the store names the step first (untilStepStartedOnDisk).
      await untilStepStartedOnDisk(stateDir, 1, step, 60_000);
      await first.installer.kill9();
      const second = await rig({ folder, stateDir, readiness: first.readiness });
      assert.match(second.installer.banner, new RegExp(`attempt 1 was interrupted at ${step}`));
      const verdict = (await second.installer.request("/v1/installer/install/verdict")).json;
      assert.equal(verdict.code, "INTERRUPTED");
      assert.equal(verdict.step, step);
      assert.equal(verdict.next, next);
      assert.equal((await second.installer.request("/v1/installer/status")).json.phase, "failed");
      const events = (await second.installer.request("/v1/installer/install/events?attempt=1")).json;
      assert.equal(events.finished, true);
      assert.ok(events.events.some((e: any) => e.type === "step.started" && e.step === step));
      assert.equal(events.events.at(-1).type, "attempt.finished");
      if (step === "readiness") {
        const recheck = await second.installer.request("/v1/installer/install/recheck-readiness", { method: "POST" });
        assert.equal(recheck.status, 202);
      }
    });
  }
});

