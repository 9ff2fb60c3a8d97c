/** The draft's errors beside their fields (matched by field path, falling back to the nearest parent) and in a summary list. */
import type { Schemas } from "./api.ts";
import { $, fill, h, plural } from "./dom.ts";
import { form, stepOf, steps, visibleErrors } from "./form-fields.ts";
import { goStep, renderStepper } from "./stepper.ts";
import { state } from "./store.ts";
import { renderYamlErrors, selectTab } from "./yaml-tab.ts";

type FieldError = Schemas["FieldError"];

let errorSeq = 0;
const LIST_ITEM = /([A-Za-z]+(?:\.[A-Za-z]+)*)\[(\d+)\](?: ([0-9A-Fa-f.:]+\/\d+)(?= ))?/g;
/** A field path: dotted anywhere (network.address), or a top-level key opening the message (hostname). */
const FIELD = /^[a-z][A-Za-z]*(?:\.[A-Za-z]+)*(?=[ :]|$)|\b[a-z][A-Za-z]*(?:\.[A-Za-z]+)+\b/g;

/**
 * Messages whose subject is a whole fieldset: with its legend as the subject they read as a riddle ("How the admin
 * logs in needs a way to log in"), so beside that legend the form says what to do. The API's own words stay as they are.
 */
const FORM_SAYS: [RegExp, string][] = [
  [/^admin needs a way to log in:/, "Add an SSH key or a password hash, or nobody can log in to the node"],
  [/^storage\.osdDevices needs at least one disk for mode /, "Choose at least one disk: Ceph keeps the cluster's data on the disks of a hyperconverged node"],
];

/**
 * The validator names fields by path (cluster.joinToken, network.floatingIpCidrs[1]); the form says what
 * its labels say (Join token, Floating IP range 2). A path the form has no label for stays as it is.
 */
export function inFormWords(message: string): string {
  const own = FORM_SAYS.find(([said]) => said.test(message));
  if (own) return own[1];
  let opensWithLabel = false;
  const said = message
    .replace(LIST_ITEM, (whole, path: string, index: string, value: string | undefined, at: number) => {
      const list = form().querySelector<HTMLElement>('[data-list="' + CSS.escape(path) + '"]');
      if (!list) return whole;
      if (at === 0) opensWithLabel = true;
      return list.dataset.item + " " + (Number(index) + 1) + (value ? " (" + value + ")" : "");
    })
    .replace(FIELD, (path: string, at: number) => {
      const label = labelOf(path);
      if (!label) return path;
      if (at === 0) opensWithLabel = true;
      return at === 0 || /^.[A-Z]/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
    });
  return opensWithLabel ? said.charAt(0).toUpperCase() + said.slice(1) : said;
}

/** What the form calls a field: its label, or its fieldset's legend, without "(optional)". */
function labelOf(path: string): string | null {
  const el = form().querySelector<HTMLElement>('[data-field="' + CSS.escape(path) + '"]');
  if (!el) return null;
  const label = el.tagName === "FIELDSET" ? el.querySelector("legend") : document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
  return label ? label.textContent!.replace(/\s*\(optional\)/, "").trim() : null;
}

/** The other fields a message names (the range a range overlaps): marked too, since either may be the one to change. */
function namedFields(error: FieldError): string[] {
  return [...error.message.matchAll(LIST_ITEM)].map((m) => m[1] + "[" + m[2] + "]").filter((path) => path !== error.field);
}

/**
 * The form's element for `path` or its nearest parent (network.dns[1], network.dns, network). The path of an unknown
 * key is the draft's own text ("dns[]", or as long as the body): cut where each segment starts, in one pass, and
 * only cuts as short as the form's own paths are looked up.
 */
function fieldElement(path: string): HTMLElement | null {
  const fields = new Map<string, HTMLElement>();
  for (const el of [...form().querySelectorAll<HTMLElement>("[data-field]")].reverse()) fields.set(el.dataset.field!, el);
  const longest = Math.max(0, ...[...fields.keys()].map((field) => field.length));
  const cuts = [...path.matchAll(/[.[]/g)].map((m) => m.index!).reverse();
  for (const end of [path.length, ...cuts]) {
    const el = end <= longest ? fields.get(path.slice(0, end)) : undefined;
    if (el) return el;
  }
  return null;
}

function fieldLabel(path: string): string {
  const el = fieldElement(path);
  if (!el) return path || "The whole config";
  return steps()[stepOf(path)]!.dataset.title + " › " + (labelOf(el.dataset.field!) || path);
}

export function renderErrors(): void {
  clearFieldErrors();
  const errors = visibleErrors();
  const structured = state.draft!.source === "structured";
  if (structured) errors.forEach(markField);
  renderYamlErrors(structured ? [] : errors);
  renderSummary(structured ? errors : []);
  renderStepper();
}

function clearFieldErrors(): void {
  for (const el of form().querySelectorAll("[data-error]")) el.remove();
  for (const el of form().querySelectorAll<HTMLElement>("[aria-invalid]")) {
    el.removeAttribute("aria-invalid");
    if (el.dataset.describedby) el.setAttribute("aria-describedby", el.dataset.describedby);
    else el.removeAttribute("aria-describedby");
  }
}

function markField(error: FieldError): void {
  const el = fieldElement(error.field);
  if (el) mark(el, error);
  for (const path of namedFields(error)) {
    const other = form().querySelector<HTMLElement>('[data-field="' + CSS.escape(path) + '"]');
    if (other && other !== el) mark(other, error);
  }
}

function mark(el: HTMLElement, error: FieldError): void {
  const id = "error-" + ++errorSeq;
  const message = h("p", { class: "error", id, "data-error": true }, inFormWords(error.message), error.hint ? h("span", { class: "hint" }, error.hint) : null);
  if (el.tagName === "FIELDSET") return el.querySelector("legend")!.after(message);
  const row = el.closest(".list-row, .choice");
  if (row) row.lastElementChild!.after(message);
  else el.after(message);
  if (!el.hasAttribute("aria-invalid")) el.dataset.describedby = el.getAttribute("aria-describedby") || "";
  el.setAttribute("aria-invalid", "true");
  el.setAttribute("aria-describedby", ((el.getAttribute("aria-describedby") || "") + " " + id).trim());
}

function renderSummary(errors: FieldError[]): void {
  const box = $("summary");
  box.hidden = errors.length === 0;
  fill(box, h("h3", {}, plural(errors.length, "problem") + " to fix"),
    h("ul", { class: "errors" }, errors.map((e) => h("li", {}, h("button", { type: "button", class: "linkish", onclick: () => focusField(e.field) }, fieldLabel(e.field)), ": " + inFormWords(e.message)))));
}

export function focusField(path: string): void {
  selectTab("form");
  if (stepOf(path) !== state.step) goStep(stepOf(path));
  const el = fieldElement(path);
  const target = el && el.tagName === "FIELDSET" ? el.querySelector<HTMLElement>("input:not([disabled]), textarea, select") : el;
  (target || $("s" + state.step)).focus();
}
