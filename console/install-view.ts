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

type Verdict = Schemas["Verdict"];
type Readiness = Omit<Schemas["Report"]["readinessHistory"][number], "time">;
/** What the events read here carry in `data`, which the API document leaves open. */
type EventData = { kind: Run["kind"]; outcome: StepState; verdict: Verdict } & Readiness;

const STEPS_OF: Record<Run["kind"], StepName[]> = { install: ["preflight", "write-config", "firstboot", "readiness"], "recheck-readiness": ["readiness"] };
const STEP_TEXT: Record<StepName, string> = { preflight: "Preflight checks", "write-config": "Write node.yaml", firstboot: "Run firstboot", readiness: "Wait until the cloud is READY" };
const STATE_TEXT: Record<StepState | "pending", string> = { pending: "waiting", running: "running", succeeded: "done", failed: "failed" };
const READY_STATUSES = ["ok", "ready", "pass", "passed", "healthy", "up"];
const NEXT: Partial<Record<Verdict["next"], [string, () => Promise<void>]>> = {
  recheckReadiness: ["Recheck readiness", recheck],
  retryInstall: ["Retry the install", install],
  fixConfig: ["Fix the config", fixConfig],
  clearBlockers: ["Show the blockers", showBlockers],
};

export function follow(attempt: number): void {
  stopFollowing();
  const controller = new AbortController();
  state.follow = controller;
  state.run = { attempt, kind: "install", steps: {} };
  showView("install");
  $("verdict").hidden = true;
  $("join-token").hidden = true;
  $("next").hidden = true;
  fill($("log"));
  $("cloud-state").textContent = "Not polled yet.";
  $("checks").hidden = true;
  renderRun();
  $("install-view-title").focus();
  readEvents(attempt, controller.signal, onEvent).catch(report);
  refreshStatus().catch(report);
}

export function stopFollowing(): void {
  if (state.follow) state.follow.abort();
  state.follow = null;
}

function onEvent(event: Schemas["InstallEvent"]): void {
  const run = state.run!;
  const data = event.data as EventData;
  if (event.type === "attempt.started") run.kind = data.kind;
  if (event.type === "step.started") run.steps[event.step!] = "running";
  if (event.type === "step.finished") run.steps[event.step!] = data.outcome;
  if (event.type === "readiness.poll") renderReadiness(data);
  appendLog(event);
  if (event.type === "attempt.finished") {
    for (const step of Object.keys(run.steps) as StepName[]) if (run.steps[step] === "running") run.steps[step] = "failed";
    showVerdict(data.verdict);
    refreshStatus().then(showJoinToken).then(showNext).catch(report);
  }
  renderRun();
}

function renderRun(): void {
  const run = state.run!;
  $("install-view-title").textContent = (run.kind === "install" ? "Install" : "Readiness recheck") + ", attempt " + run.attempt;
  fill($("steps"), STEPS_OF[run.kind].map((step) => {
    const now = run.steps[step] || "pending";
    return h("li", { class: now, "data-step": step, "aria-current": now === "running" ? "step" : null }, STEP_TEXT[step] + " ", h("span", { class: "state" }, "(" + STATE_TEXT[now] + ")"));
  }));
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

function appendLog(event: Schemas["InstallEvent"]): void {
  const log = $("log");
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 32;
  log.append(h("div", { class: event.level === "info" ? null : event.level },
    h("time", { datetime: event.time }, new Date(event.time).toLocaleTimeString()), " ", event.step ? "[" + event.step + "] " : "", event.message));
  if (log.childElementCount > 2000) log.firstElementChild!.remove();
  if (atEnd) log.scrollTop = log.scrollHeight;
}

function showVerdict(verdict: Verdict): void {
  const ok = verdict.outcome === "succeeded";
  const next = NEXT[verdict.next];
  const box = $("verdict");
  box.className = "card verdict " + (ok ? "ok" : "bad");
  fill(box,
    h("h3", {}, ok ? (verdict.kind === "install" ? "Done: the node is installed" : "Done: the cloud is READY") : "Attempt " + verdict.attempt + " failed at " + verdict.step),
    ok ? null : h("p", {}, h("code", {}, verdict.code)),
    h("p", {}, verdict.message),
    verdict.checks ? renderJoinChecks(verdict.checks, "Join check") : null,
    h("div", { class: "actions" },
      next ? h("button", { type: "button", class: "primary", onclick: guard(next[1]) }, next[0]) : null,
      !ok && (verdict.next === "retryInstall" || verdict.next === "recheckReadiness") ? h("button", { type: "button", onclick: guard(fixConfig) }, "Edit the config") : null,
      h("button", { type: "button", onclick: guard(() => downloadReport(verdict.attempt)) }, "Download report")));
  box.hidden = false;
  box.focus();
}

/** Once installed: how to reach the node, from the draft it was installed with. */
async function showNext(): Promise<void> {
  if (state.status!.phase !== "done") return;
  const draft = (await api("/config")).config as { network?: { address?: string }; admin?: { sshAuthorizedKeys?: string[] } } | undefined;
  const ip = (draft?.network?.address || "").split("/")[0];
  const keys = draft?.admin?.sshAuthorizedKeys || [];
  fill($("next-body"),
    h("p", {}, "The node is installed and its cloud answered READY."),
    ip ? h("p", {}, "Reach the node over SSH at ", h("code", {}, ip), " with the private key of one of the admin keys set in the Admin step:") : null,
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
