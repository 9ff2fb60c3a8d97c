import { constants } from "node:fs";
import { access } from "node:fs/promises";
import type { DraftAnalysis } from "../../draft/index.ts";
import type { Blocker } from "../../common/errors.ts";
import { joinCheckNext, type JoinCheckResult } from "../../cluster/join-codes.ts";
import type { AttemptRecord } from "../../state/records.ts";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";

interface PreflightInputs {
  draft: DraftAnalysis;
  blockers: Blocker[];
  firstboot: string | undefined;
  /** The join check of a hyperconverged-join draft (SPEC §6); undefined for other modes. */
  joinCheck: (signal: AbortSignal) => Promise<JoinCheckResult | undefined>;
  record: Pick<AttemptRecord, "joinCheck">;
}

/** Validate + blockers + host checks, all reported before anything on the node changes. */
export async function runPreflight(ctx: StepContext, inputs: PreflightInputs): Promise<void> {
  if (!inputs.draft.valid) {
    const list = inputs.draft.errors.map((e) => `${e.field || "(config)"}: ${e.message}`);
    throw new StepFailure("PREFLIGHT_FAILED", `The config does not validate: ${list.join("; ")}`);
  }
  ctx.emit({ type: "step.progress", level: "info", message: "config validates" });
  if (inputs.blockers.length > 0) {
    throw new StepFailure("INSTALL_BLOCKED", `Blockers refuse the install: ${inputs.blockers.map((b) => `${b.code}: ${b.detail}`).join("; ")}`);
  }
  ctx.emit({ type: "step.progress", level: "info", message: "no blockers" });
  // Every problem of the node and of the cluster it joins, listed at once, before anything is written.
  const [firstbootProblem, joined] = await Promise.all([firstbootCheck(ctx, inputs.firstboot), inputs.joinCheck(ctx.signal)]);
  if (joined) reportJoinCheck(ctx, joined, inputs.record);
  const failures = joined?.checks.filter((check) => check.code) ?? [];
  if (!firstbootProblem && failures.length === 0) return;
  if (failures.length === 0) throw new StepFailure("PREFLIGHT_FAILED", firstbootProblem!, "retryInstall");
  const problems = [...failures.map((check) => `${check.code}: ${check.detail}`), ...(firstbootProblem ? [firstbootProblem] : [])];
  throw new StepFailure("PREFLIGHT_FAILED", `The join check failed; nothing was written: ${problems.join("; ")}`, joinCheckNext(failures), joined?.checks);
}

async function firstbootCheck(ctx: StepContext, firstboot: string | undefined): Promise<string | undefined> {
  if (firstboot === undefined) return undefined;
  try {
    await access(firstboot, constants.X_OK);
  } catch (err) {
    return `The firstboot program ${firstboot} cannot be run (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the install medium may be incomplete. Check --firstboot, then retry the install.`;
  }
  ctx.emit({ type: "step.progress", level: "info", message: `firstboot program ${firstboot} is executable` });
  return undefined;
}

function reportJoinCheck(ctx: StepContext, result: JoinCheckResult, record: Pick<AttemptRecord, "joinCheck">): void {
  record.joinCheck = result.checks;
  for (const check of result.checks) {
    const level = check.ok ? "info" : check.code ? "error" : "warn";
    ctx.emit({ type: "step.progress", level, message: `join check ${check.name}: ${check.ok ? "ok" : (check.code ?? "not checked")} — ${check.detail}`, data: { check } });
  }
}
