/** The tabs, and the raw node.yaml editor with its errors by line:column. */
import type { Schemas } from "./api.ts";
import { $, fill, h, plural, type Child } from "./dom.ts";
import { readForm } from "./form-fields.ts";
import { state } from "./store.ts";

const TABS = ["form", "yaml"] as const;

/** The form (readForm's JSON) the tab's text was made from, "" when it is the draft's own node.yaml. */
let madeFrom = "";

export function selectTab(name: (typeof TABS)[number]): void {
  for (const tab of TABS) {
    const on = tab === name;
    $("tab-" + tab).setAttribute("aria-selected", String(on));
    $("tab-" + tab).tabIndex = on ? 0 : -1;
    $("panel-" + tab).hidden = !on;
  }
  if (name === "yaml" && !state.yamlDirty) {
    madeFrom = state.draft!.source === "yaml" ? "" : JSON.stringify(readForm());
    $<HTMLTextAreaElement>("yaml").value = state.draft!.source === "yaml" ? state.draft!.yaml! : toNodeYaml(readForm());
  }
  if (name === "yaml") renderLineNumbers();
}

/** Whether the tab's text was made from the form as it is now: saving the text saves what the form holds too. */
export function yamlHoldsForm(): boolean {
  return madeFrom !== "" && madeFrom === JSON.stringify(readForm());
}

export function onTabKey(event: KeyboardEvent): void {
  const at = (TABS as readonly string[]).indexOf((event.target as HTMLElement).id.slice(4));
  const to = ({ ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: TABS.length - 1 } as Record<string, number>)[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const name = TABS[(to + TABS.length) % TABS.length]!;
  selectTab(name);
  $("tab-" + name).focus();
}

/** What the form holds, as node.yaml: snake_case keys, node.yaml mode names, every scalar quoted. */
function toNodeYaml(config: Record<string, unknown>): string {
  const lines: string[] = [];
  const emit = (key: string, value: unknown, depth: number) => {
    const line = "  ".repeat(depth) + key.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()) + ":";
    if (Array.isArray(value)) {
      lines.push(line + (value.length ? "" : " []"));
      for (const item of value) lines.push("  ".repeat(depth + 1) + "- " + JSON.stringify(String(item)));
    } else if (value && typeof value === "object") {
      lines.push(line);
      for (const [k, v] of Object.entries(value)) emit(k, v, depth + 1);
    } else {
      const mode = depth === 0 && key === "mode" && state.options!.modes.find((m) => m.mode === value);
      lines.push(line + " " + JSON.stringify(String(mode ? mode.nodeYamlMode : value)));
    }
  };
  for (const [key, value] of Object.entries(config)) emit(key, value, 0);
  return lines.join("\n") + "\n";
}

let errorLines = new Set<number>();
/** The gutter on screen (its line count and marked lines): a keystroke that changes neither leaves it be. */
let gutterShown = "";

/**
 * The gutter's numbers, the lines with a problem marked, scrolled with the text. A run of unmarked numbers is one
 * text: a node per line took 4 s a keystroke for a node.yaml of 100,000 lines, and one at the body limit froze the tab.
 */
export function renderLineNumbers(): void {
  const lines = $<HTMLTextAreaElement>("yaml").value.split("\n").length;
  const key = lines + " " + [...errorLines].join(" ");
  if (key !== gutterShown) {
    gutterShown = key;
    const parts: Child[] = [];
    let run = "";
    for (let line = 1; line <= lines; line++) {
      if (!errorLines.has(line)) {
        run += line + "\n";
        continue;
      }
      parts.push(run, h("span", { class: "bad" }, line + "\n"));
      run = "";
    }
    fill($("yaml-lines"), parts, run);
  }
  syncGutter();
}

export function syncGutter(): void {
  $("yaml-lines").scrollTop = $("yaml").scrollTop;
}

export function renderYamlErrors(errors: Schemas["FieldError"][]): void {
  errorLines = new Set(errors.flatMap((e) => (e.line ? [e.line] : [])));
  renderLineNumbers();
  const box = $("yaml-errors");
  $("yaml").setAttribute("aria-invalid", String(errors.length > 0));
  fill(box, errors.length ? [h("h3", {}, plural(errors.length, "problem") + " in node.yaml"),
    h("ul", {}, errors.map((e) => h("li", {},
      lineColumn(e.line || 1, e.column || 1),
      " " + (e.field || "node.yaml") + ": " + e.message + (e.hint ? " (" + e.hint + ")" : ""))))] : []);
}

/** Its name starts with what it shows (WCAG 2.5.3: a voice user says "click 8:3"), then says it in words. */
function lineColumn(line: number, column: number): HTMLElement {
  const shown = line + ":" + column;
  return h("button", { type: "button", class: "linkish", "aria-label": shown + ", line " + line + ", column " + column, onclick: () => caretTo(line, column) }, shown);
}

function caretTo(line: number, column: number): void {
  const area = $<HTMLTextAreaElement>("yaml");
  const offset = area.value.split("\n").slice(0, line - 1).reduce((n, text) => n + text.length + 1, 0) + column - 1;
  area.focus();
  area.setSelectionRange(offset, offset);
  area.scrollTop = Math.max(0, (line - 3) * parseFloat(getComputedStyle(area).lineHeight));
  syncGutter();
}
