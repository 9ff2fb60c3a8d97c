/** One attempt, live: its steps, the cloud's readiness checks, the log, and the verdict with its next action. */
import { remember } from "./address.ts";
import type { Schemas } from "./api.ts";
import { renderPicker } from "./attempt-picker.ts";
import { $, fill, h, saveFile, showView } from "./dom.ts";
import { printableJsonText, visible } from "../core/common/printable.ts";
import { guard, report } from "./guard.ts";
import { fixConfig, install, recheck, showBlockers } from "./install-actions.ts";
import { appendLog } from "./install-log.ts";
import { bundleControl } from "./support-bundle.ts";
import { renderJoinChecks } from "./join-check.ts";
import { showJoinToken } from "./join-token.ts";
import { keepTicking, renderTimes, stepTime, stopTicking } from "./run-clock.ts";
import { call, follow, refreshStatus, state, type EventData, type Run, type StepName } from "./store.ts";

type Verdict = Schemas["Verdict"];

const STEPS_OF: Record<Run["kind"], StepName[]> = { install: ["preflight", "write-config", "firstboot", "readiness"], "recheck-readiness": ["readiness"] };
const STEP_TEXT: Record<StepName, string> = { preflight: "Preflight checks", "write-config": "Write node.yaml", firstboot: "Run firstboot", readiness: "Wait until the cloud is READY" };
const READY_STATUSES = ["ok", "ready", "pass", "passed", "healthy", "up"];
const NEXT: Partial<Record<Verdict["next"], [string, () => Promise<void>]>> = {
  recheckReadiness: ["Recheck readiness", recheck],
  retryInstall: ["Retry the install", install],
  fixConfig: ["Fix the config", fixConfig],
  clearBlockers: ["Show the blockers", showBlockers],
};

/** A newly opened attempt, shown from its start; `focus` false when the person chose it in the picker and stays there. */
export function showRun(focus: boolean): void {
  leaveRun();
  showView("install");
  $("verdict").hidden = true;
  $("join-token").hidden = true;
  $("next").hidden = true;
  fill($("log"));
  $("cloud-state").textContent = "Not polled yet.";
  $("checks").hidden = true;
  renderRun();
  remember();
  if (focus) $("install-view-title").focus();
  renderPicker(state.run!.attempt).catch(report);
}

/** Events the store has taken in and the page has not drawn yet: a burst (a replay, a chatty firstboot) is drawn once a frame. */
let pending: Schemas["InstallEvent"][] = [];
let frame = 0;

/** One event of the shown attempt, which the store has already taken in: drawn with the others of its frame. */
export function showEvent(event: Schemas["InstallEvent"]): void {
  pending.push(event);
  if (!frame) frame = requestAnimationFrame(drawPending);
}

/** The shown attempt is left: what it has not drawn is dropped, and its clock stops. */
export function leaveRun(): void {
  cancelAnimationFrame(frame);
  frame = 0;
  pending = [];
  stopTicking();
}

function drawPending(): void {
  const events = pending;
  pending = [];
  frame = 0;
  const run = state.run!;
  const polls = events.filter((e) => e.type === "readiness.poll");
  if (polls.length) renderReadiness(polls[polls.length - 1]!.data as EventData);
  appendLog(events, run);
  const finished = events.find((e) => e.type === "attempt.finished");
  if (finished) {
    showVerdict((finished.data as EventData).verdict);
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

function renderReadiness(data: EventData): void {
  $("cloud-state").textContent = visible("State: " + data.state + (data.detail ? ", " + data.detail : ""));
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
      h("button", { type: "button", onclick: guard(() => downloadReport(verdict.attempt)) }, "Download report"),
      ok ? null : bundleControl("verdict-bundle")));
  box.hidden = false;
  if (!run.picked) box.focus();
}

/** Once installed: where the cloud is and how to reach the node, from the latest attempt's report. */
async function showNext(): Promise<void> {
  if (state.status!.phase !== "done") return;
  const { endpoints, config } = await call("/install/report");
  const keys = (config.config as { admin?: { sshAuthorizedKeys?: string[] } } | undefined)?.admin?.sshAuthorizedKeys || [];
  const ip = endpoints && endpoints.ssh;
  fill($("next-body"),
    h("p", {}, "The node is installed and its cloud answered READY."),
    endpoints && endpoints.cloudApi ? h("p", {}, "The cloud's API answers at ", h("code", {}, endpoints.cloudApi), ".") : null,
    ip ? h("p", {}, "Reach the node over SSH at ", h("code", {}, ip), " with the private key of one of the admin keys " + (keys.length ? "set in the Admin step:" : "in node.yaml.")) : null,
    keys.length ? h("ul", {}, keys.map((k) => h("li", {}, h("code", {}, k.split(/\s+/).slice(0, 1).join(" ") + " … " + (k.split(/\s+/)[2] || ""))))) : null);
  $("next").hidden = false;
}

async function downloadReport(attempt: number): Promise<void> {
  const report = await call("/install/report", { query: { attempt } });
  // Written out as the API writes it (a firstboot's bidi overrides and C1 controls as \uXXXX): the file is opened in editors and terminals.
  saveFile(new Blob([printableJsonText(JSON.stringify(report, null, 2)) + "\n"], { type: "application/json" }), "stratum-install-report-attempt-" + attempt + ".json");
}
