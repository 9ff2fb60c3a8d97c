/** The configure view: the form and the node.yaml tab around one draft, saved step by step. */
import type { Failure, Schemas } from "./api.ts";
import { $, announce, showView } from "./dom.ts";
import { focusField, renderErrors } from "./field-errors.ts";
import { fillForm, formSaved, readForm, stepOf, steps } from "./form-fields.ts";
import { focusReview } from "./review.ts";
import { draftProblems, renderStatus } from "./status.ts";
import { goStep, showStep } from "./stepper.ts";
import { configure, refreshStatus, reloadDraft, saveStructured, saveYaml as saveYamlDraft, setYamlDirty, state } from "./store.ts";
import { unsavedEdits } from "./unsaved.ts";
import { selectTab, yamlHoldsForm } from "./yaml-tab.ts";

export function showConfigure(): void {
  configure();
  showView("configure");
  showStep(state.step);
  selectTab(state.draft!.source === "yaml" ? "yaml" : "form");
  renderStatus();
}

export async function saveForm(): Promise<void> {
  const draft = await saveDraft();
  const here = draft.errors.filter((e) => stepOf(e.field) === state.step);
  if (here.length) return focusField(here[0]!.field);
  if (state.step < steps().length - 1) goStep(state.step + 1);
  else await focusReview();
}

/** The form as the draft; errors of the steps up to this one are shown from now on. */
export async function saveDraft(): Promise<Schemas["DraftView"]> {
  const draft = await unlessChanged(saveStructured(readForm()));
  await saved(draft, true);
  return draft;
}

export async function saveYaml(): Promise<void> {
  const withForm = yamlHoldsForm();
  const draft = await unlessChanged(saveYamlDraft($<HTMLTextAreaElement>("yaml").value, steps().length));
  await saved(draft, withForm);
  if (!draft.valid) $("yaml-errors").querySelector("button")!.focus();
}

/** A save refused because the draft changed elsewhere since the page loaded it: said, with the offer to reload it. */
async function unlessChanged(save: Promise<Schemas["DraftView"]>): Promise<Schemas["DraftView"]> {
  try {
    return await save;
  } catch (err) {
    if ((err as Failure).code !== "PRECONDITION_FAILED") throw err;
    $("draft-changed").hidden = false;
    $("draft-changed").focus();
    throw new Error("Nothing was saved: the draft was changed elsewhere since this page loaded it.");
  }
}

/** The draft as saved now, in place of what the page holds: the form and the node.yaml tab are filled from it. */
export async function reloadTheDraft(): Promise<void> {
  showSavedDraft(await reloadDraft());
  renderErrors();
  await refreshStatus();
  announce("The draft as saved now is loaded.");
  if (state.draft!.source === "yaml") $("yaml").focus();
  else $("s" + state.step).focus();
}

/** A draft the store has just loaded, shown in both editors: edits on screen are replaced. */
export function showSavedDraft(draft: Schemas["DraftView"]): void {
  $("draft-changed").hidden = true;
  fillForm(draft);
  setYamlDirty(false);
  selectTab(draft.source === "yaml" ? "yaml" : "form");
}

/** `withForm`: what the form holds was in what was saved. Edits of the form that were not stay unsaved, and are said. */
async function saved(draft: Schemas["DraftView"], withForm: boolean): Promise<void> {
  $("draft-changed").hidden = true;
  if (draft.source === "structured") fillForm(draft);
  else {
    // the node.yaml tab's text was made from the form as it is: what the form holds went into the draft with it
    if (withForm) formSaved();
    $("form-source").hidden = false;
  }
  renderErrors();
  announce(["Saved.", draft.valid ? "The draft is valid." : draftProblems(), unsavedEdits()].filter(Boolean).join(" "));
  await refreshStatus();
}
