import type { DraftService } from "../../draft/index.ts";
import type { Blocker } from "../../common/errors.ts";
import { type AttemptKind, type AttemptRecord, type Step, STEPS } from "../../state/records.ts";
import type { Settings } from "../../common/settings.ts";
import type { Cluster } from "../../cluster/service.ts";
import type { StepContext } from "./context.ts";
import { firstbootMark } from "../../process/group.ts";
import { runFirstboot } from "./firstboot.ts";
import { runPreflight } from "./preflight.ts";
import { waitForReadiness } from "./readiness.ts";
import { writeConfig } from "./write-config.ts";

export const STEPS_OF: Record<AttemptKind, readonly Step[]> = {
  install: STEPS,
  "recheck-readiness": ["readiness"],
};

export type StepSettings = Pick<Settings, "stateDir" | "nodeYaml" | "firstboot" | "readinessUrl" | "readinessTimeoutSeconds" | "readinessIntervalSeconds">;

export interface StepInputs {
  draft: Pick<DraftService, "analysis" | "nodeYaml">;
  blockers: () => Blocker[];
  settings: StepSettings;
  /** Writes the store, the attempt's record with it. */
  persist: () => Promise<void>;
  cluster: Pick<Cluster, "foundingSecret" | "preflightCheck">;
  /** The step's deadline as stepDeadline gave it when the step started, by the step's monotonic clock (StepContext.monotonic). */
  deadline?: number;
}

/** When a step must have ended, counted from its start: only the readiness wait has a deadline (--readiness-timeout). */
export function stepDeadline(step: Step, settings: StepSettings, startedMs: number): number | undefined {
  return step === "readiness" ? startedMs + settings.readinessTimeoutSeconds * 1000 : undefined;
}

/** One step of an attempt, given what it works from. */
export function runStep(step: Step, ctx: StepContext, record: AttemptRecord, { draft, blockers, settings, persist, cluster, deadline }: StepInputs): Promise<void> {
  switch (step) {
    case "preflight":
      return runPreflight(ctx, { draft: draft.analysis(), blockers: blockers(), firstboot: settings.firstboot, joinCheck: (signal) => cluster.preflightCheck(signal, record.attempt), record });
    case "write-config":
      return writeConfig(ctx, { path: settings.nodeYaml, text: draft.nodeYaml(), foundingSecret: () => cluster.foundingSecret(), record });
    case "firstboot":
      return runFirstboot(ctx, { executable: settings.firstboot, nodeYamlPath: settings.nodeYaml, mark: firstbootMark(settings.stateDir), record, persist });
    case "readiness":
      return waitForReadiness(
        ctx,
        { url: settings.readinessUrl, timeoutSeconds: settings.readinessTimeoutSeconds, intervalSeconds: settings.readinessIntervalSeconds, deadline },
        record.readinessHistory,
        (sha256) => (record.cloudCertSha256 = sha256),
      );
  }
}
