import { JoinCheckSchema } from "./cluster.ts";
import { z } from "@hono/zod-openapi";
import { EVENT_LEVELS, EVENT_TYPES } from "../../core/attempts/events.ts";
import { ATTEMPT_KINDS, ATTEMPT_STATES, FAILURE_CODES, NEXT_ACTIONS, STEPS } from "../../core/state/records.ts";
import { CodeSchema, PhaseSchema, nameSchema } from "./common.ts";

/** A step, as /status names it: a later installer may add steps, and a client follows its attempts all the same. */
const StepNameSchema = nameSchema(STEPS);

/** Query parameters are strict: a misspelt one (`?attemp=2`) is refused, not answered for the latest attempt. */
export const AttemptQuerySchema = z.strictObject({
  attempt: z.coerce.number().int().min(1).optional().meta({ description: "The attempt number; default the latest." }),
});

export const StartedSchema = z
  .object({
    attempt: z.number().int().min(1),
    phase: PhaseSchema,
    eventsUrl: z.string().meta({ description: "Where to follow the attempt (JSON, or SSE with Accept: text/event-stream)." }),
  })
  .meta({ id: "AttemptStarted" });

export const VerdictSchema = z
  .object({
    attempt: z.number().int(),
    kind: z.enum(ATTEMPT_KINDS),
    outcome: z.enum(["succeeded", "failed"]),
    step: StepNameSchema.nullable().meta({ description: "The step it ended at (failed at, or the last one)." }),
    code: CodeSchema.meta({ examples: [...FAILURE_CODES] }).nullable().meta({ description: "Why it failed; null when it succeeded." }),
    message: z.string().meta({ description: "What happened and what to do, for a person." }),
    next: z.enum(NEXT_ACTIONS).meta({
      description:
        "none: nothing to do. recheckReadiness: it failed at readiness (the cloud was not READY in time): POST /install/recheck-readiness. fixConfig: change the draft, then install. retryInstall: fix the node, then POST /install again. clearBlockers: clear the blockers in /status, then install.",
    }),
    checks: z.array(JoinCheckSchema).optional().meta({ description: "When a join check failed preflight: every check, each failure with its code (SPEC §6)." }),
  })
  .meta({ id: "Verdict" });

export const StepRecordSchema = z
  .object({
    step: StepNameSchema,
    state: z.enum(ATTEMPT_STATES),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().optional(),
    message: z.string().optional(),
    deadline: z.iso.datetime().optional().meta({
      description: "readiness only: when the wait ends (--readiness-timeout after the step started); the step fails with READINESS_TIMEOUT when the cloud is not READY by then.",
    }),
  })
  .meta({ id: "StepRecord" });

export const EventSchema = z
  .object({
    seq: z.number().int().min(1).meta({ description: "Monotonic within the attempt; the SSE id." }),
    attempt: z.number().int(),
    time: z.iso.datetime(),
    type: z.enum(EVENT_TYPES),
    step: StepNameSchema.optional(),
    level: z.enum(EVENT_LEVELS),
    message: z.string(),
    data: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "What the event carries besides its message, by type: attempt.started {kind, startedBy}; step.started of readiness {deadline} (when the wait ends, ISO time); step.log {stream, truncatedBytes?}; step.progress {check} (a join check), {stopped, killedAfterMs?, survived?} (what firstboot left running; `survived`: those SIGKILL has not ended yet, each with its process state) or {limit: {lines, bytes}} (firstboot's output reached the 500,000 lines or 64 MiB of events an attempt keeps) or {notKept: {lines, bytes}} (what it printed past that, said once its output ended, perhaps after its step.finished); step.finished {outcome, durationMs}; readiness.poll {state, detail?, checks?}; attempt.finished {verdict}.",
    }),
  })
  .meta({ id: "InstallEvent" });

export const AttemptSummarySchema = z
  .object({
    attempt: z.number().int(),
    kind: z.enum(ATTEMPT_KINDS),
    startedBy: z.enum(["person", "unattended"]),
    state: z.enum(ATTEMPT_STATES),
    step: StepNameSchema.nullable(),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().optional(),
    verdict: VerdictSchema.optional(),
  })
  .meta({ id: "AttemptSummary" });
