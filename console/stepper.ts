/** The form's steps one at a time, and the stepper that names them with their problem counts. */
import { remember } from "./address.ts";
import { $, fill, h } from "./dom.ts";
import { stepOf, steps, visibleErrors } from "./form-fields.ts";
import { setStep, state } from "./store.ts";

export function renderStepper(): void {
  const counts = steps().map(() => 0);
  for (const error of visibleErrors()) counts[stepOf(error.field)]! += 1;
  fill($("stepper"), steps().map((section, i) => h("li", {},
    h("button", { type: "button", "aria-current": i === state.step ? "step" : null, onclick: () => goStep(i) }, section.dataset.title,
      counts[i] ? h("span", { class: "count" }, String(counts[i]), h("span", { class: "sr" }, counts[i] === 1 ? " problem" : " problems")) : null))));
}

export function showStep(index: number): void {
  setStep(index);
  steps().forEach((section, i) => (section.hidden = i !== index));
  $("back").hidden = index === 0;
  $("save").textContent = index === steps().length - 1 ? "Save" : "Save and continue";
  renderStepper();
  remember();
}

export function goStep(index: number): void {
  showStep(index);
  $("s" + index).focus();
}
