import assert from "node:assert/strict";
import { test } from "node:test";
import { runPreflight } from "../../../core/attempts/steps/preflight.ts";
import type { StepContext } from "../../../core/attempts/steps/context.ts";
import { StepFailure, nextAction } from "../../../core/attempts/verdict.ts";
import type { FailureCode } from "../../../core/records.ts";
import type { Step } from "../../../core/model.ts";

const cases: [FailureCode, Step | null, string][] = [
  ["READINESS_TIMEOUT", "readiness", "recheckReadiness"],
  ["INTERRUPTED", "readiness", "recheckReadiness"],
  ["INTERRUPTED", "firstboot", "retryInstall"],
  ["INTERRUPTED", "write-config", "retryInstall"],
  ["INTERRUPTED", "preflight", "retryInstall"],
  ["INTERRUPTED", null, "retryInstall"],
  ["INSTALL_BLOCKED", "preflight", "clearBlockers"],
  ["PREFLIGHT_FAILED", "preflight", "fixConfig"],
  ["WRITE_FAILED", "write-config", "retryInstall"],
  ["FIRSTBOOT_FAILED", "firstboot", "retryInstall"],
];
for (const [code, step, next] of cases) {
  test(`${code} at ${step} → next ${next}`, () => assert.equal(nextAction(code, step), next));
}

const ctx = (): StepContext & { events: string[] } => {
  const events: string[] = [];
  return { events, emit: (e) => events.push(e.message), backlogged: () => undefined, redactor: { text: (s) => s }, now: () => new Date(), signal: new AbortController().signal };
};
const validDraft = { valid: true, errors: [], profile: "single-node" as const };

test("preflight refused by blockers fails INSTALL_BLOCKED (next clearBlockers) naming them", async () => {
  await assert.rejects(
    runPreflight(ctx(), { draft: validDraft, blockers: [{ code: "PAYLOAD_VERIFYING", detail: "checking 3 of 4 GiB" }], firstboot: undefined }),
    (err: StepFailure) => err.code === "INSTALL_BLOCKED" && /PAYLOAD_VERIFYING: checking 3 of 4 GiB/.test(err.message) && nextAction(err.code, "preflight") === "clearBlockers",
  );
});

test("preflight on an invalid draft fails PREFLIGHT_FAILED (next fixConfig) listing every field", async () => {
  const draft = { valid: false, errors: [{ field: "hostname", message: "bad" }, { field: "network.gateway", message: "missing" }], profile: "single-node" as const };
  await assert.rejects(runPreflight(ctx(), { draft, blockers: [], firstboot: undefined }), (err: StepFailure) => err.code === "PREFLIGHT_FAILED" && /hostname: bad; network\.gateway: missing/.test(err.message) && err.next === undefined);
});

test("preflight with a firstboot that cannot run fails PREFLIGHT_FAILED with next retryInstall", async () => {
  await assert.rejects(runPreflight(ctx(), { draft: validDraft, blockers: [], firstboot: "/nonexistent/firstboot" }), (err: StepFailure) => err.code === "PREFLIGHT_FAILED" && err.next === "retryInstall" && /ENOENT/.test(err.message));
});

test("preflight passes and says what it checked", async () => {
  const c = ctx();
  await runPreflight(c, { draft: validDraft, blockers: [], firstboot: "/bin/true" });
  assert.deepEqual(c.events, ["config validates", "no blockers", "firstboot program /bin/true is executable"]);
});
