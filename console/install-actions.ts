/** Starting an attempt (install, readiness recheck) and what a refused start shows: the place where it can be fixed. */
import type { Failure } from "./api.ts";
import { showConfigure, showSavedDraft } from "./configure.ts";
import { $ } from "./dom.ts";
import { renderErrors } from "./field-errors.ts";
import { steps, visibleErrors } from "./form-fields.ts";
import { reviewAgain, reviewed } from "./review.ts";
import { goStep } from "./stepper.ts";
import { call, follow, followLatest, refreshStatus, reloadDraft } from "./store.ts";

export async function install(): Promise<void> {
  try {
    follow((await call("/install", { method: "post", ifMatch: reviewed() || undefined })).attempt);
  } catch (problem) {
    await refused(problem as Failure);
  }
}

export async function recheck(): Promise<void> {
  try {
    follow((await call("/install/recheck-readiness", { method: "post" })).attempt);
  } catch (problem) {
    await refused(problem as Failure);
  }
}

/** A refused POST: show why where it can be fixed. */
async function refused(problem: Failure): Promise<void> {
  if (problem.code === "INVALID_CONFIG") {
    showSavedDraft(await reloadDraft(steps().length));
    showConfigure();
    renderErrors();
    $("summary").focus();
  } else if (problem.code === "INSTALL_BLOCKED") {
    await showBlockers();
  } else if (problem.code === "PRECONDITION_FAILED") {
    showSavedDraft(await reloadDraft());
    showConfigure();
    await refreshStatus();
    await reviewAgain();
    throw new Error("The draft changed since you reviewed it (it was saved elsewhere): nothing was installed. Review it again, then install.");
  } else if (problem.code === "INSTALL_RUNNING" || problem.code === "ALREADY_INSTALLED") {
    await followLatest();
  } else {
    throw problem;
  }
}

export async function showBlockers(): Promise<void> {
  showConfigure();
  await refreshStatus();
  $("install-card").focus();
}

export async function fixConfig(): Promise<void> {
  const draft = await reloadDraft(steps().length);
  showSavedDraft(draft);
  showConfigure();
  renderErrors();
  if (visibleErrors().length) return (draft.source === "yaml" ? $("yaml-errors").querySelector("button")! : $("summary")).focus();
  // Nothing to fix is listed: focus goes to where editing starts, not to the body the verdict's button left.
  if (draft.source === "yaml") $("yaml").focus();
  else goStep(0);
}
