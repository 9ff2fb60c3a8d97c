/** One attempt, live: its steps, the cloud's readiness checks, the log, and the verdict with its next action. */
import { guard, report } from "./actions.ts";
import { api, type Failure, type Schemas } from "./api.ts";
import { showConfigure } from "./boot.ts";
import { $, fill, h, showView } from "./dom.ts";
import { readEvents } from "./events.ts";
import { renderErrors, visibleErrors } from "./field-errors.ts";
import { steps } from "./form.ts";
import { renderJoinChecks } from "./join-check.ts";
import { showJoinToken } from "./join-token.ts";
import { state, type Run, type StepName, type StepState } from "./state.ts";
import { install, refreshStatus, refused, showBlockers } from "./status.ts";
import { renderPicker } from "./attempt-picker.ts";
import { appendLog } from "./install-log.ts";
import { keepTicking, renderTimes, stepTime, stopTicking } from "./run-clock.ts";

type Verdict = Schemas["Verdict"];
type Readiness = Omit<Schemas["Report"]["readinessHistory"][number], "time">;
/** What the events read here carry in `data`, which the API document leaves open. */
type EventData = { kind: Run["kind"]; outcome: StepState; verdict: Verdict; deadline?: string } & Readiness;

const STEPS_OF: Record<Run["kind"], StepName[]> = { install: ["preflight", "write-config", "firstboot", "readiness"], "recheck-readiness": ["readiness"] };
const STEP_TEXT: Record<StepName, string> = { preflight: "Preflight checks", "write-config": "Write node.yaml", firstboot: "Run firstboot", readiness: "Wait until the cloud is READY" };
const READY_STATUSES = ["ok", "ready", "pass", "passed", "healthy", "up"];
const NEXT: Partial<Record<Verdict["next"], [string, () => Promise<void>]>> = {
  recheckReadiness: ["Recheck readiness", recheck],
  retryInstall: ["Retry the install", install],
  fixConfig: ["Fix the config", fixConfig],
  clearBlockers: ["Show the blockers", showBlockers],
};

/** Shows an attempt, live while it runs; `focus` false when the person chose it in the picker and stays there. */
export function follow(attempt: number, focus = true): void {
  stopFollowing();
  const controller = new AbortController();
  state.follow = controller;
  state.run = { attempt, kind: "install", steps: {}, times: {}, latest: attempt >= (state.status ? state.status.attempt : 0), picked: !focus };
  showView("install");
  $("verdict").hidden = true;
  $("join-token").hidden = true;
  $("next").hidden = true;
  fill($("log"));
  $("cloud-state").textContent = "Not polled yet.";
  $("checks").hidden = true;
  renderRun();
  if (focus) $("install-view-title").focus();
  readEvents(attempt, controller.signal, onEvent).catch(report);
  refreshStatus().catch(report);
  renderPicker(attempt).catch(report);
}

export function stopFollowing(): void {
  if (state.follow) state.follow.abort();
  state.follow = null;
  stopTicking();
}

function onEvent(event: Schemas["InstallEvent"]): void {
  const run = state.run!;
  const data = event.data as EventData;
  const at = Date.parse(event.time);
  if (event.type === "attempt.started") Object.assign(run, { kind: data.kind, span: { start: at } });
  if (event.type === "step.started") {
    run.steps[event.step!] = "running";
    run.times[event.step!] = { start: at };
    if (data && data.deadline) run.deadline = Date.parse(data.deadline);
  }
  if (event.type === "step.finished") {
    run.steps[event.step!] = data.outcome;
    run.times[event.step!]!.end = at;
  }
  if (event.type === "readiness.poll") renderReadiness(data);
  appendLog(event, run);
  if (event.type === "attempt.finished") {
    for (const step of Object.keys(run.steps) as StepName[]) {
      if (run.steps[step] !== "running") continue;
      run.steps[step] = "failed";
      run.times[step]!.end = at;
    }
    if (run.span) run.span.end = at;
    showVerdict(data.verdict);
    refreshStatus().then(showJoinToken).then(showNext).catch(report);
    renderPicker(run.attempt).catch(report);
  }
  renderRun();
}

function renderRun(): void {
  const run = state.run!;
  $("install-view-title").textContent = (run.kind === "install" ? "Install" : "Readiness recheck") + ", attempt " + run.attempt;
  fill($("steps"), STEPS_OF[run.kind].map((step) => {
    const now = run.steps[step] || "pending";
    return h("li", { class: now, "data-step": step, "aria-current": now === "running" ? "step" : null }, STEP_TEXT[step] + " ", h("span", { class: "state" }, "(" + stepTime(step) + ")"));
  }));
  renderTimes();
  keepTicking(renderRun);
}

function renderReadiness(data: Readiness): void {
  $("cloud-state").textContent = "State: " + data.state + (data.detail ? ", " + data.detail : "");
  const checks = data.checks || [];
  $("checks").hidden = checks.length === 0;
  fill($<HTMLTableElement>("checks").tBodies[0]!, checks.map((c) => {
    const ok = READY_STATUSES.includes(c.status.toLowerCase());
    return h("tr", {}, h("td", {}, c.name), h("td", { class: ok ? "status-ok" : "status-pending" }, (ok ? "✓ " : "… ") + c.status), h("td", {}, c.detail || ""));
  }));
}

function showVerdict(verdict: Verdict): void {
  const ok = verdict.outcome === "succeeded";
  const run = state.run!;
  const next = run.latest ? NEXT[verdict.next] : undefined;
  const latest = state.status ? state.status.attempt : 0;
  const box = $("verdict");
  box.className = "card verdict " + (ok ? "ok" : "bad");
  fill(box,
    h("h3", {}, ok ? (verdict.kind === "install" ? "Done: the node is installed" : "Done: the cloud is READY") : "Attempt " + verdict.attempt + " failed at " + verdict.step),
    ok ? null : h("p", {}, h("code", {}, verdict.code)),
    h("p", {}, verdict.message),
    verdict.checks ? renderJoinChecks(verdict.checks, "Join check") : null,
    run.latest ? null : h("p", {}, "Attempt " + latest + " came after this one: its verdict says what to do now."),
    h("div", { class: "actions" },
      next ? h("button", { type: "button", class: "primary", onclick: guard(next[1]) }, next[0]) : null,
      run.latest && !ok && (verdict.next === "retryInstall" || verdict.next === "recheckReadiness") ? h("button", { type: "button", onclick: guard(fixConfig) }, "Edit the config") : null,
      run.latest ? null : h("button", { type: "button", onclick: () => follow(latest) }, "Show attempt " + latest),
      h("button", { type: "button", onclick: guard(() => downloadReport(verdict.attempt)) }, "Download report")));
  box.hidden = false;
  if (!run.picked) box.focus();
}

/** Once installed: where the cloud is and how to reach the node, from the latest attempt's report. */
async function showNext(): Promise<void> {
  if (state.status!.phase !== "done") return;
  const { endpoints, config } = await api("/install/report");
  const keys = (config.config as { admin?: { sshAuthorizedKeys?: string[] } } | undefined)?.admin?.sshAuthorizedKeys || [];
  const ip = endpoints && endpoints.ssh;
  fill($("next-body"),
    h("p", {}, "The node is installed and its cloud answered READY."),
    endpoints && endpoints.cloudApi ? h("p", {}, "The cloud's API answers at ", h("code", {}, endpoints.cloudApi), ".") : null,
    ip ? h("p", {}, "Reach the node over SSH at ", h("code", {}, ip), " with the private key of one of the admin keys " + (keys.length ? "set in the Admin step:" : "in node.yaml.")) : null,
    keys.length ? h("ul", {}, keys.map((k) => h("li", {}, h("code", {}, k.split(/\s+/).slice(0, 1).join(" ") + " … " + (k.split(/\s+/)[2] || ""))))) : null);
  $("next").hidden = false;
}

async function recheck(): Promise<void> {
  try {
    follow((await api("/install/recheck-readiness", { method: "post" })).attempt);
  } catch (problem) {
    await refused(problem as Failure);
  }
}

async function fixConfig(): Promise<void> {
  state.draft = await api("/config");
  state.shownUpTo = steps().length;
  showConfigure();
  renderErrors();
  if (visibleErrors().length) (state.draft.source === "yaml" ? $("yaml-errors").querySelector("button")! : $("summary")).focus();
}

async function downloadReport(attempt: number): Promise<void> {
  const report = await api("/install/report", { query: { attempt } });
  const url = URL.createObjectURL(new Blob([JSON.stringify(report, null, 2) + "\n"], { type: "application/json" }));
  const link = h("a", { href: url, download: "stratum-install-report-attempt-" + attempt + ".json", hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
