/** The attempt's log: each line names its step once, and how the attempt ended is told by the verdict, not again here. */
import type { Schemas } from "./api.ts";
import { $, h } from "./dom.ts";
import type { Run } from "./store.ts";
import { duration, utcTime } from "./time.ts";

type Event = Schemas["InstallEvent"];

/** The lines the log keeps: the newest. */
const KEPT = 2000;

/**
 * A batch of events as log lines: one layout read (is the log scrolled to its end?) before any write, one append,
 * one trim and one scroll, however many events came. Per event, a 100,000-line firstboot froze the tab for minutes.
 */
export function appendLog(events: Event[], run: Run): void {
  const log = $("log");
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 32;
  const lines = document.createDocumentFragment();
  for (const event of events.slice(-KEPT)) {
    lines.append(h("div", { class: event.level === "info" ? null : event.level, "data-type": event.type },
      h("time", { datetime: event.time }, utcTime(event.time)), " ", lineOf(event, run)));
  }
  log.append(lines);
  for (let over = log.childElementCount - KEPT; over > 0; over--) log.firstElementChild!.remove();
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
