import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { phaseOf, refusal, type AdmissionRequest } from "../../../core/attempts/admission.ts";
import type { Blocker } from "../../../core/common/errors.ts";
import type { Phase } from "../../../core/common/model.ts";
import type { AttemptRecord, AttemptState, Step } from "../../../core/state/records.ts";

/** An attempt record as the runner leaves it: only its state and, once it ended, its verdict's step matter here. */
function attempt(n: number, state: AttemptState, endedAt: Step | null = null): AttemptRecord {
  const record: AttemptRecord = {
    attempt: n,
    kind: "install",
    startedBy: "person",
    state,
    step: endedAt,
    startedAt: "2026-12-02T12:00:00.000Z",
    steps: [],
    config: { source: "structured", config: {} },
    payloadVersion: null,
    firstbootTail: [],
    readinessHistory: [],
  };
  if (state === "succeeded") record.verdict = { attempt: n, kind: "install", outcome: "succeeded", step: endedAt, code: null, message: "", next: "none" };
  if (state === "failed") {
    const atReadiness = endedAt === "readiness";
    record.verdict = {
      attempt: n,
      kind: "install",
      outcome: "failed",
      step: endedAt,
      code: atReadiness ? "READINESS_TIMEOUT" : "FIRSTBOOT_FAILED",
      message: "",
      next: atReadiness ? "recheckReadiness" : "retryInstall",
    };
  }
  return record;
}

const none: AttemptRecord[] = [];
const running = [attempt(1, "running")];
const failedAtFirstboot = [attempt(1, "failed", "firstboot")];
const failedAtReadiness = [attempt(1, "failed", "firstboot"), attempt(2, "failed", "readiness")];
const succeeded = [attempt(1, "succeeded", "readiness")];
const succeededThenRecheckFailed = [attempt(1, "succeeded", "readiness"), attempt(2, "failed", "readiness")];

describe("phaseOf (seed 000)", () => {
  const cases: [string, AttemptRecord[], Phase][] = [
    ["no attempt", none, "configuring"],
    ["the latest runs", running, "installing"],
    ["a retry runs after a failure", [...failedAtFirstboot, attempt(2, "running")], "installing"],
    ["the latest failed", failedAtFirstboot, "failed"],
    ["one succeeded", succeeded, "done"],
    ["one succeeded, a later one failed", succeededThenRecheckFailed, "done"],
  ];
  for (const [name, attempts, phase] of cases) test(`${name} → ${phase}`, () => assert.equal(phaseOf(attempts), phase));
});

describe("refusal: may it happen now?", () => {
  type Draft = Extract<AdmissionRequest, { action: "install" }>["draft"];
  const valid: Draft = { valid: true, errors: [] };
  const invalid: Draft = { valid: false, errors: [{ field: "hostname", message: "required" }] };
  const blockers: Blocker[] = [{ code: "PAYLOAD_NOT_LOADED", detail: "no payload" }];
  const install = (attempts: AttemptRecord[], draft = valid, b: Blocker[] = []): AdmissionRequest => ({ action: "install", attempts, draft, blockers: b });
  const recheck = (attempts: AttemptRecord[]): AdmissionRequest => ({ action: "recheck-readiness", attempts });
  const change = (attempts: AttemptRecord[]): AdmissionRequest => ({ action: "change-draft", attempts });

  const cases: [string, AdmissionRequest, string | undefined][] = [
    ["install, nothing yet", install(none), undefined],
    ["install after a failure", install(failedAtFirstboot), undefined],
    ["install while one runs", install(running), "INSTALL_RUNNING"],
    ["install once installed", install(succeeded), "ALREADY_INSTALLED"],
    ["install of an invalid draft", install(none, invalid), "INVALID_CONFIG"],
    ["install with blockers", install(none, valid, blockers), "INSTALL_BLOCKED"],
    ["install of an invalid draft with blockers: the config first", install(none, invalid, blockers), "INVALID_CONFIG"],
    ["install while one runs, draft invalid: running first", install(running, invalid, blockers), "INSTALL_RUNNING"],
    ["recheck after a readiness failure", recheck(failedAtReadiness), undefined],
    ["recheck after a firstboot failure", recheck(failedAtFirstboot), "RECHECK_NOT_APPLICABLE"],
    ["recheck with no attempt", recheck(none), "RECHECK_NOT_APPLICABLE"],
    ["recheck while one runs", recheck(running), "INSTALL_RUNNING"],
    ["recheck once installed (seed 001 names RECHECK_NOT_APPLICABLE)", recheck(succeededThenRecheckFailed), "RECHECK_NOT_APPLICABLE"],
    ["draft change, nothing yet", change(none), undefined],
    ["draft change after a failure", change(failedAtReadiness), undefined],
    ["draft change while one runs", change(running), "INSTALL_RUNNING"],
    ["draft change once installed", change(succeeded), "ALREADY_INSTALLED"],
  ];
  for (const [name, request, code] of cases) {
    test(`${name} → ${code ?? "admitted"}`, () => assert.equal(refusal(request)?.code, code));
  }

  test("each refusal says what waits, and how to go on", () => {
    assert.equal(
      refusal(change(running))?.detail,
      "Attempt 1 is running, so changing the draft must wait until it ends; follow it at /v1/installer/install/events.",
    );
    assert.equal(refusal(install(succeeded))?.detail, "An install attempt succeeded: this node is installed, so another install has no effect any more.");
    assert.equal(
      refusal(recheck(failedAtFirstboot))?.detail,
      "The last attempt (1) failed at firstboot, not at readiness; its verdict says retryInstall.",
    );
    assert.equal(refusal(recheck(none))?.detail, "No install attempt has run yet; start one with POST /v1/installer/install.");
    assert.deepEqual(refusal(install(none, invalid))?.errors, invalid.errors);
    assert.deepEqual(refusal(install(none, valid, blockers))?.blockers, blockers);
  });
});
