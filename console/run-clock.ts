/** The shown attempt's times, live while it runs: each step's and the attempt's elapsed time, and the readiness wait's countdown. */
import { $ } from "./dom.ts";
import { state, type Span, type StepName } from "./store.ts";
import { duration, serverNow, utcTime } from "./time.ts";

let ticker = 0;

/** "running, 12 s" ("when last heard" while the installer does not answer), "done in 3 s", "failed after 3 s", or "waiting". */
export function stepTime(step: StepName): string {
  const run = state.run!;
  const span = run.times[step];
  const now = run.steps[step] || "pending";
  if (!span || now === "pending") return "waiting";
  if (now === "running") return "running, " + duration(elapsed(span)) + lastHeard();
  return (now === "succeeded" ? "done in " : "failed after ") + duration(elapsed(span));
}

/** Now, by the installer's clock; while the attempt's events do not come (their stream broke off) or the installer does not answer, when it was last heard of: its times stop there. */
function now(): number {
  return state.run!.brokenAt ?? (state.offline ? state.heardAt : serverNow());
}

function lastHeard(): string {
  return state.run!.brokenAt !== undefined || state.offline ? " when last heard" : "";
}

function elapsed(span: Span): number {
  return (span.end ?? now()) - span.start;
}

export function renderTimes(): void {
  const run = state.run!;
  const span = run.span;
  $("attempt-times").textContent = !span ? "" : "Started " + utcTime(span.start) + " UTC · " +
    (span.end === undefined ? "running for " + duration(elapsed(span)) + lastHeard() + (state.offline ? ": the installer is not answering" : "") : "ended " + utcTime(span.end) + " UTC, after " + duration(elapsed(span)));
  renderCountdown();
}

function renderCountdown(): void {
  const run = state.run!;
  const wait = $("readiness-wait");
  const span = run.times.readiness;
  wait.hidden = !span || !run.deadline;
  if (wait.hidden) return;
  const total = " of the " + duration(run.deadline! - span!.start) + " wait";
  wait.textContent = run.steps.readiness === "running"
    ? "The wait ends at " + utcTime(run.deadline!) + " UTC: " + duration(run.deadline! - now()) + " left" + total + lastHeard() + "."
    : "Waited " + duration(elapsed(span!)) + total + ".";
}

/** Ticks each second while the attempt runs; `render` redraws what shows time. */
export function keepTicking(render: () => void): void {
  const running = state.run && state.run.span && state.run.span.end === undefined;
  if (running && !ticker) ticker = setInterval(render, 1000);
  if (!running) stopTicking();
}

export function stopTicking(): void {
  clearInterval(ticker);
  ticker = 0;
}
