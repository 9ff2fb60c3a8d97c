/** The attempt's log: each line names its step once, and how the attempt ended is told by the verdict, not again here. */
import type { Schemas } from "./api.ts";
import { $, h } from "./dom.ts";
import type { Run } from "./store.ts";
import { duration, utcTime } from "./time.ts";

type Event = Schemas["InstallEvent"];

export function appendLog(event: Event, run: Run): void {
  const log = $("log");
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 32;
  log.append(h("div", { class: event.level === "info" ? null : event.level, "data-type": event.type },
    h("time", { datetime: event.time }, utcTime(event.time)), " ", lineOf(event, run)));
  if (log.childElementCount > 2000) log.firstElementChild!.remove();
  if (atEnd) log.scrollTop = log.scrollHeight;
}

function lineOf(event: Event, run: Run): string {
  const data = event.data as { durationMs?: number; outcome?: string; verdict?: Schemas["Verdict"] } | undefined;
  const step = event.step;
  if (event.type === "step.finished" && step) return step + (data!.outcome === "succeeded" ? " succeeded in " : " failed after ") + duration(data!.durationMs || 0);
  if (event.type === "attempt.finished") {
    const v = data!.verdict!;
    const took = run.span ? " after " + duration(Date.parse(event.time) - run.span.start) : "";
    return "attempt " + v.attempt + (v.outcome === "succeeded" ? " succeeded" + took : " failed at " + (v.step || "its start") + took + ": " + v.code);
  }
  // firstboot's own "firstboot: …" and the runner's "readiness started" already name the step
  return step && !new RegExp("^\\[?" + step + "\\b").test(event.message) ? "[" + step + "] " + event.message : event.message;
}
