import type { Logger, Origin } from "../common/log.ts";
import type { ReadinessObservation, Verdict } from "../state/records.ts";
import type { NewEvent } from "./events.ts";
import { notReadyChecks } from "./steps/readiness.ts";

/**
 * An attempt's milestones in the service log, one line each, from the events the runner writes:
 * what an operator reading journald needs (the installer's warnings on a step among them), without firstboot's output
 * (that stays in the events). `step` is the step the runner files the event under (a step's own events carry none).
 */
export function journal(log: Logger, attempt: number, event: NewEvent, origin?: Origin, step = event.step): void {
  const write = (message: string, fields: Record<string, unknown>) => log[event.level](message, fields);
  const data = event.data ?? {};
  switch (event.type) {
    case "attempt.started":
      return write("attempt started", { ...origin, attempt, kind: data.kind, startedBy: data.startedBy });
    case "step.started":
      return write("step started", { attempt, step });
    case "step.progress":
      // The installer's own word on a step, a warning or worse (firstboot's leftovers stopped, its output past what is
      // kept, a cloud slow to be READY, a join check that failed); the routine progress stays in the events.
      if (event.level === "info") return;
      return write("step progress", { attempt, step, detail: event.message });
    case "step.finished":
      return write("step finished", { attempt, step, outcome: data.outcome, durationMs: data.durationMs, ...(data.outcome === "failed" ? { error: event.message } : {}) });
    case "readiness.poll": {
      const observation = data as Omit<ReadinessObservation, "time">;
      const notReady = notReadyChecks(observation).map((check) => check.name);
      return write("readiness changed", { attempt, state: observation.state, detail: observation.detail, ...(notReady.length > 0 ? { notReady } : {}) });
    }
    case "attempt.finished": {
      const { kind, outcome, step, code, next, message } = data.verdict as Verdict;
      return write("attempt finished", { attempt, kind, outcome, step, code, next, ...(code ? { detail: message } : {}) });
    }
  }
}
