/** What GET /status says, shown: the header line, the unattended notice, the blockers and whether the install can start. */
import { report } from "./actions.ts";
import { api, type Failure, type Schemas } from "./api.ts";
import { showConfigure } from "./boot.ts";
import { $, fill, h, plural } from "./dom.ts";
import { renderErrors, visibleErrors } from "./field-errors.ts";
import { steps } from "./form.ts";
import { follow } from "./install-view.ts";
import { refreshReview, reviewAgain, reviewConfirmed, reviewed } from "./review.ts";
import { state } from "./state.ts";
import { utcDateTime } from "./time.ts";

/** An attempt started elsewhere (unattended, curl) while the person configures is followed at once. */
export async function refreshStatus(): Promise<void> {
  const known = state.status ? state.status.attempt : 0;
  state.status = await api("/status");
  renderStatus();
  if (!$("configure").hidden && state.status.attempt > known) follow(state.status.attempt);
}

export function renderStatus(): void {
  const s = state.status!;
  $("where").textContent = s.hostname + " · " + s.phase + (state.options && state.options.release ? " · release " + state.options.release : "");
  renderUnattended(s.unattended);
  renderInstallCard();
}

function renderUnattended(u: Schemas["Unattended"] | undefined): void {
  const key = JSON.stringify(u || null);
  $("unattended").hidden = !u;
  if (!u || key === state.unattendedKey) return;
  state.unattendedKey = key;
  const found = "Stage 1 left a node.yaml" + (u.origin ? " (" + u.origin + ")" : "") + ", which the installer took on " + utcDateTime(u.takenAt) + ". ";
  const text = {
    started: found + "It validated, so the installer started install attempt " + u.attempt + " by itself.",
    invalid: found + "It did not validate, so nothing started. It is the draft: fix it in the node.yaml tab, save, then install.",
    blocked: found + "It validated, but blockers refuse the install, so nothing started. " + (u.autoStart
      ? "The install starts by itself once the blockers clear. Editing the draft (saving the form or node.yaml) or starting the install yourself ends this wait."
      : "It is the draft and waits for you to install it."),
  }[u.state];
  fill($("unattended"), h("h2", {}, "Unattended install"), h("p", {}, text),
    u.errors && u.errors.length ? h("ul", {}, u.errors.map((e) => h("li", {}, (e.line ? e.line + ":" + e.column + " " : "") + (e.field || "node.yaml") + ": " + e.message))) : null);
}

function renderInstallCard(): void {
  const s = state.status!;
  const blockers = s.blockers || [];
  fill($("blockers"), blockers.length ? [h("p", { class: "error" }, "The install cannot start while these blockers stand:"),
    h("ul", {}, blockers.map((b) => h("li", {}, h("code", {}, b.code), ": " + b.detail, b.progress ? progressBar(b.progress) : null)))] : []);
  const reasons: string[] = [];
  if (!s.configValid) reasons.push(draftProblems());
  if (blockers.length) reasons.push("Clear the blockers to install.");
  $("readiness-of-draft").textContent = reasons.join(" ") || "The draft is valid and nothing blocks the install: it writes node.yaml, runs firstboot and waits until the cloud is READY.";
  $<HTMLButtonElement>("install-button").disabled = reasons.length > 0 || !reviewConfirmed();
  refreshReview(reasons.length === 0 && !$("configure").hidden).catch(report);
  for (const note of document.querySelectorAll<HTMLElement>("[data-hand-over]")) note.hidden = !(s.unattended && s.unattended.autoStart);
  $("past-attempts").hidden = s.attempt === 0;
  $("show-attempts").textContent = s.attempt === 1 ? "Show attempt 1" : "Show the " + s.attempt + " attempts so far";
}

/** The bar's label says the numbers, so a screen reader and the eye read the same. */
function progressBar(p: { doneBytes: number; totalBytes: number }): HTMLElement {
  const percent = p.totalBytes ? Math.floor((p.doneBytes / p.totalBytes) * 100) : 100;
  const label = "Payload checked: " + percent + "%";
  return h("div", { class: "payload-progress" },
    h("label", { for: "payload-progress" }, label),
    h("progress", { id: "payload-progress", max: p.totalBytes || 1, value: p.totalBytes ? p.doneBytes : 1 }, percent + "%"));
}

/** The same count the summary lists; steps not saved yet are named, not counted, since their problems are listed nowhere yet. */
function draftProblems(): string {
  const shown = visibleErrors().length;
  const unsaved = state.draft && state.draft.source === "structured" ? steps().slice(state.shownUpTo + 1).map((el) => el.dataset.title) : [];
  return "The draft does not validate yet" + (shown ? " (" + plural(shown, "problem") + " listed above)" : "") + ": " +
    (unsaved.length ? "fill and save the remaining steps (" + unsaved.join(", ") + ")" + (shown ? ", and fix what is listed." : ".") : "fix what is listed.");
}

export async function install(): Promise<void> {
  try {
    follow((await api("/install", { method: "post", ifMatch: reviewed() || undefined })).attempt);
  } catch (problem) {
    await refused(problem as Failure);
  }
}

/** A refused POST: show why where it can be fixed. */
export async function refused(problem: Failure): Promise<void> {
  if (problem.code === "INVALID_CONFIG") {
    state.draft = await api("/config");
    state.shownUpTo = steps().length;
    showConfigure();
    renderErrors();
    $("summary").focus();
  } else if (problem.code === "INSTALL_BLOCKED") {
    await showBlockers();
  } else if (problem.code === "PRECONDITION_FAILED") {
    state.draft = await api("/config");
    showConfigure();
    await refreshStatus();
    await reviewAgain();
    throw new Error("The draft changed since you reviewed it (it was saved elsewhere): nothing was installed. Review it again, then install.");
  } else if (problem.code === "INSTALL_RUNNING" || problem.code === "ALREADY_INSTALLED") {
    state.status = await api("/status");
    follow(state.status.attempt);
  } else {
    throw problem;
  }
}

export async function showBlockers(): Promise<void> {
  showConfigure();
  await refreshStatus();
  $("install-card").focus();
}
