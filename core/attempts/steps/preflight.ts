import { constants } from "node:fs";
import { access } from "node:fs/promises";
import type { DraftAnalysis } from "../../draft/index.ts";
import type { Blocker } from "../../errors.ts";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";

export interface PreflightInputs {
  draft: DraftAnalysis;
  blockers: Blocker[];
  firstboot: string | undefined;
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
  if (inputs.firstboot !== undefined) {
    try {
      await access(inputs.firstboot, constants.X_OK);
    } catch (err) {
      throw new StepFailure(
        "PREFLIGHT_FAILED",
        `The firstboot program ${inputs.firstboot} cannot be run (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the install medium may be incomplete. Check --firstboot, then retry the install.`,
        "retryInstall",
      );
    }
    ctx.emit({ type: "step.progress", level: "info", message: `firstboot program ${inputs.firstboot} is executable` });
  }
}
