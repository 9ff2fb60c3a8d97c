import assert from "node:assert/strict";
import { test } from "node:test";
import { type JoinCheckResult } from "../../../core/cluster/join-codes.ts";
import { runPreflight } from "../../../core/attempts/steps/preflight.ts";
import type { StepContext } from "../../../core/attempts/steps/context.ts";
import { StepFailure, nextAction } from "../../../core/attempts/verdict.ts";
import { type FailureCode, JOIN_CHECK_NAMES, type JoinCode, type Step } from "../../../core/state/records.ts";

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
  return { events, emit: (e) => events.push(e.message), backlogged: () => undefined, redactor: { text: (s) => s }, now: () => new Date(), signal: new AbortController().signal, succeeded: async () => undefined };
};
const validDraft = { valid: true, errors: [], profile: "single-node" as const };
const noJoin = { joinCheck: async () => undefined, record: {} };

test("preflight refused by blockers fails INSTALL_BLOCKED (next clearBlockers) naming them", async () => {
  await assert.rejects(
    runPreflight(ctx(), { draft: validDraft, blockers: [{ code: "PAYLOAD_VERIFYING", detail: "checking 3 of 4 GiB" }], firstboot: undefined, ...noJoin }),
    (err: StepFailure) => err.code === "INSTALL_BLOCKED" && /PAYLOAD_VERIFYING: checking 3 of 4 GiB/.test(err.message) && nextAction(err.code, "preflight") === "clearBlockers",
  );
});

test("preflight on an invalid draft fails PREFLIGHT_FAILED (next fixConfig) listing every field", async () => {
  const draft = { valid: false, errors: [{ field: "hostname", message: "bad" }, { field: "network.gateway", message: "missing" }], profile: "single-node" as const };
  await assert.rejects(runPreflight(ctx(), { draft, blockers: [], firstboot: undefined, ...noJoin }), (err: StepFailure) => err.code === "PREFLIGHT_FAILED" && /hostname: bad; network\.gateway: missing/.test(err.message) && err.next === undefined);
});

test("preflight with a firstboot that cannot run fails PREFLIGHT_FAILED with next retryInstall", async () => {
  await assert.rejects(runPreflight(ctx(), { draft: validDraft, blockers: [], firstboot: "/nonexistent/firstboot", ...noJoin }), (err: StepFailure) => err.code === "PREFLIGHT_FAILED" && err.next === "retryInstall" && /ENOENT/.test(err.message));
});

test("preflight passes and says what it checked", async () => {
  const c = ctx();
  await runPreflight(c, { draft: validDraft, blockers: [], firstboot: "/bin/true", ...noJoin });
  assert.deepEqual(c.events, ["config validates", "no blockers", "firstboot program /bin/true is executable"]);
});

const joinChecks = (failed: Partial<Record<string, JoinCode>>): JoinCheckResult => {
  const checks = JOIN_CHECK_NAMES.map((name) => (failed[name] ? { name, ok: false, code: failed[name], detail: `${name} detail` } : { name, ok: true, detail: `${name} ok` }));
  return { ok: checks.every((c) => c.ok), checks };
};

test("a join check that passes: each check is an event and joins the attempt's record", async () => {
  const c = ctx();
  const record: { joinCheck?: JoinCheckResult["checks"] } = {};
  await runPreflight(c, { draft: validDraft, blockers: [], firstboot: "/bin/true", joinCheck: async () => joinChecks({}), record });
  assert.equal(record.joinCheck?.length, JOIN_CHECK_NAMES.length);
  assert.ok(c.events.includes("join check fingerprint: ok — fingerprint ok"), c.events.join("\n"));
});

for (const { name, failed, firstboot, next } of [
  { name: "a refused token asks to fix the config", failed: { token: "JOIN_TOKEN_REFUSED" as const }, firstboot: "/bin/true", next: "fixConfig" },
  { name: "another release asks to retry", failed: { release: "JOIN_RELEASE_MISMATCH" as const }, firstboot: "/bin/true", next: "retryInstall" },
  { name: "skew and a wrong cluster: the config's to fix, both listed", failed: { clock: "JOIN_CLOCK_SKEW" as const, cluster: "JOIN_CLUSTER_MISMATCH" as const }, firstboot: "/bin/true", next: "fixConfig" },
  { name: "a failed join check and a firstboot that cannot run: all listed at once", failed: { release: "JOIN_RELEASE_MISMATCH" as const }, firstboot: "/nonexistent/firstboot", next: "retryInstall" },
]) {
  test(`preflight: ${name}`, async () => {
    const record: { joinCheck?: JoinCheckResult["checks"] } = {};
    await assert.rejects(runPreflight(ctx(), { draft: validDraft, blockers: [], firstboot, joinCheck: async () => joinChecks(failed), record }), (err: StepFailure) => {
      assert.equal(err.code, "PREFLIGHT_FAILED");
      assert.equal(err.next, next);
      assert.equal(err.checks?.length, JOIN_CHECK_NAMES.length);
      for (const code of Object.values(failed)) assert.match(err.message, new RegExp(code));
      if (firstboot.startsWith("/nonexistent")) assert.match(err.message, /firstboot program \/nonexistent\/firstboot cannot be run/);
      return true;
    });
    assert.ok(record.joinCheck, "the record keeps the checks");
  });
}
