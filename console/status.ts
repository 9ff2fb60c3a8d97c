/** What GET /status says, shown: the header line, the unattended notice, the blockers and whether the install can start. */
import type { Schemas } from "./api.ts";
import { $, fill, h, plural } from "./dom.ts";
import { steps, visibleErrors } from "./form-fields.ts";
import { report } from "./guard.ts";
import { refreshReview, reviewConfirmed } from "./review.ts";
import { state } from "./store.ts";
import { utcDateTime } from "./time.ts";
import { unsavedEdits } from "./unsaved.ts";
import { visible } from "../core/common/printable.ts";

/** The unattended notice on screen (JSON): drawn again only when it changes, or afresh after sign-in. */
let unattendedShown = "";

export function renderStatus(fresh = false): void {
  if (fresh) unattendedShown = "";
  const s = state.status!;
  $("where").textContent = visible(s.hostname + " · " + s.phase + (state.options && state.options.release ? " · release " + state.options.release : ""));
  renderUnattended(s.unattended);
  renderInstallCard();
}

function renderUnattended(u: Schemas["Unattended"] | undefined): void {
  // Its errors are the handoff's: once the draft is saved since, they are history, and none stand once it validates.
  const since = Boolean(u && state.draft && state.draft.updatedAt && Date.parse(state.draft.updatedAt) > Date.parse(u.takenAt));
  const errors = u && u.errors && u.errors.length && !(since && state.status!.configValid) ? u.errors : [];
  const key = JSON.stringify([u || null, since, errors.length]);
  $("unattended").hidden = !u;
  if (!u || key === unattendedShown) return;
  unattendedShown = key;
  // An origin that names the file itself ("node.yaml on the partition labeled STRATUM") is said once, not as "a node.yaml (node.yaml on …)".
  const left = !u.origin ? "a node.yaml" : u.origin.startsWith("node.yaml ") ? u.origin : "a node.yaml (" + u.origin + ")";
  const found = "Stage 1 left " + left + ", which the installer took on " + utcDateTime(u.takenAt) + ". ";
  const text = {
    started: found + "It validated, so the installer started install attempt " + u.attempt + " by itself.",
    invalid: found + "It did not validate, so nothing started. " + (!since ? "It is the draft: fix it in the node.yaml tab, save, then install."
      : "The draft has been changed since" + (errors.length ? ": these are the errors found when it was taken, not the draft's now (its own are listed where it is edited)." : " and validates now.")),
    blocked: found + "It validated, but blockers refuse the install, so nothing started. " + (u.autoStart
      ? "The install starts by itself once the blockers clear. Editing the draft (saving the form or node.yaml) or starting the install yourself ends this wait."
      : "It is the draft and waits for you to install it."),
  }[u.state];
  fill($("unattended"), h("h2", {}, "Unattended install"), h("p", {}, text),
    errors.length ? h("ul", {}, errors.map((e) => h("li", {}, (e.line ? e.line + ":" + e.column + " " : "") + (e.field || "node.yaml") + ": " + e.message))) : null);
}

function renderInstallCard(): void {
  const s = state.status!;
  const blockers = s.blockers || [];
  fill($("blockers"), blockers.length ? [h("p", { class: "error" }, "The install cannot start while these blockers stand:"),
    h("ul", {}, blockers.map((b) => h("li", {}, h("code", {}, b.code), ": " + b.detail, b.progress ? progressBar(b.progress) : null)))] : []);
  renderInstallButton();
  // The saved draft is reviewed while edits wait on screen: saving them reviews it again.
  refreshReview(draftReasons().length === 0 && state.view === "configure").catch(report);
  for (const note of document.querySelectorAll<HTMLElement>("[data-hand-over]")) note.hidden = !(s.unattended && s.unattended.autoStart);
  $("past-attempts").hidden = s.attempt === 0;
  $("show-attempts").textContent = s.attempt === 1 ? "Show attempt 1" : "Show the " + s.attempt + " attempts so far";
}

/** Whether Install can start, and beside it why not: the draft, the blockers, edits not saved. */
export function renderInstallButton(): void {
  if (!state.status) return;
  const reasons = [...draftReasons(), unsavedEdits()].filter(Boolean);
  $("readiness-of-draft").textContent = reasons.join(" ") || "The draft is valid and nothing blocks the install: it writes node.yaml, runs firstboot and waits until the cloud is READY.";
  $<HTMLButtonElement>("install-button").disabled = reasons.length > 0 || !reviewConfirmed();
}

function draftReasons(): string[] {
  const s = state.status!;
  const reasons: string[] = [];
  if (!s.configValid) reasons.push(draftProblems());
  if (s.blockers && s.blockers.length) reasons.push("Clear the blockers to install.");
  return reasons;
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
export function draftProblems(): string {
  const shown = visibleErrors().length;
  const unsaved = state.draft && state.draft.source === "structured" ? steps().slice(state.shownUpTo + 1).map((el) => el.dataset.title) : [];
  return "The draft does not validate yet" + (shown ? " (" + plural(shown, "problem") + " listed above)" : "") + ": " +
    (unsaved.length ? "fill and save the remaining steps (" + unsaved.join(", ") + ")" + (shown ? ", and fix what is listed." : ".") : "fix what is listed.");
}
