/** The configure view: the form and the node.yaml tab around one draft, saved step by step. */
import type { Schemas } from "./api.ts";
import { $, announce, showView } from "./dom.ts";
import { focusField, renderErrors } from "./field-errors.ts";
import { fillForm, formSaved, readForm, stepOf, steps } from "./form-fields.ts";
import { focusReview } from "./review.ts";
import { draftProblems, renderStatus } from "./status.ts";
import { goStep, showStep } from "./stepper.ts";
import { configure, refreshStatus, saveStructured, saveYaml as saveYamlDraft, state } from "./store.ts";
import { selectTab } from "./yaml-tab.ts";

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
  const draft = await saveStructured(readForm());
  await saved(draft);
  return draft;
}

export async function saveYaml(): Promise<void> {
  const draft = await saveYamlDraft($<HTMLTextAreaElement>("yaml").value, steps().length);
  await saved(draft);
  if (!draft.valid) $("yaml-errors").querySelector("button")!.focus();
}

async function saved(draft: Schemas["DraftView"]): Promise<void> {
  if (draft.source === "structured") fillForm(draft);
  else {
    // what the form held went into the node.yaml tab's text (or was replaced by it): it is saved with it
    formSaved();
    $("form-source").hidden = false;
  }
  renderErrors();
  announce("Saved. " + (draft.valid ? "The draft is valid." : draftProblems()));
  await refreshStatus();
}
