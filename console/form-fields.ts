/** The guided form's fields: its steps in stage-2 order, filled from GET /options and the draft, read back into a structured draft. */
import type { Schemas } from "./api.ts";
import { diskFacts, disksNamed, stableNote, type Disk } from "./disks.ts";
import { $, fill, h } from "./dom.ts";
import { state } from "./store.ts";

type Tree = Record<string, unknown>;
/** A disk of the host, or one the draft names that the host does not have. */
type DiskRow = Partial<Schemas["HostInventory"]["disks"][number]> & { path: string; name: string; unknown?: true; sharedBy?: string[] };

const MODE_TEXT: Record<Schemas["InstallMode"], [string, string]> = {
  "single-node": ["Single node", "One node runs everything: compute, storage and the control plane."],
  "hyperconverged-init": ["Hyperconverged: found a cluster (HA init)", "The first node of a hyperconverged cluster; the other nodes join it."],
  "hyperconverged-join": ["Hyperconverged: join a cluster (HA join)", "A node that joins an existing hyperconverged cluster."],
  "disaggregated-control-plane": ["Disaggregated control plane (preview)", "A control-plane-only node that compute and storage nodes join later."],
};
const STEP_OF: Record<string, number> = { mode: 0, hostname: 0, timezone: 0, network: 1, storage: 2, cluster: 3, admin: 4 };

export function form(): HTMLFormElement {
  return $<HTMLFormElement>("config-form");
}
export function steps(): HTMLElement[] {
  return [...form().querySelectorAll<HTMLElement>(".step")];
}
export function stepOf(field: string): number {
  return STEP_OF[field.split(/[.[]/)[0]!] || 0;
}
function currentMode(): string {
  const radio = form().querySelector<HTMLInputElement>("input[name=mode]:checked");
  return radio ? radio.value : "";
}
function applies(el: HTMLElement): boolean {
  const scope = el.closest<HTMLElement>("[data-modes]");
  return !scope || scope.dataset.modes!.split(" ").includes(currentMode());
}

function getPath(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, key) => (o == null ? undefined : (o as Tree)[key]), obj);
}
function setPath(obj: Tree, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop()!;
  let o = obj;
  for (const key of keys) o = o[key] = (o[key] as Tree) || {};
  o[last] = value;
}

export function setupForm(): void {
  const { modes, host } = state.options!;
  fill($("modes"), h("legend", {}, "Install mode"), modes.map(modeChoice));
  fill($("f-interface"), host.interfaces.map((i) => h("option", { value: i.name }, i.name + " (" + (i.up ? "up" : "down") + (i.addresses.length ? ", " + i.addresses.join(", ") : "") + ")")));
  if (Intl.supportedValuesOf) fill($("timezones"), Intl.supportedValuesOf("timeZone").map((zone) => h("option", { value: zone })));
}

function modeChoice(option: Schemas["ModeOption"]): HTMLElement {
  const id = "mode-" + option.mode;
  const [title, text] = MODE_TEXT[option.mode] || [option.mode, ""];
  return h("div", { class: "choice" + (option.available ? "" : " off") },
    h("input", { type: "radio", name: "mode", id, value: option.mode, disabled: !option.available, "aria-describedby": id + "-help" }),
    h("div", {}, h("label", { for: id }, title), h("p", { class: "help", id: id + "-help" }, option.available ? text : "Not available: " + option.reason + ".")));
}

/** What the form held when last filled from or saved as the draft (readForm's JSON): anything else on it is not saved. */
let saved = "";

export function fillForm(draft: Schemas["DraftView"]): void {
  const config = draft.source === "structured" ? draft.config || {} : {};
  const useDefaults = !draft.updatedAt || draft.source === "yaml";
  const value = (path: string) => getPath(config, path) ?? (useDefaults ? defaultFor(path) : undefined);
  for (const radio of form().querySelectorAll<HTMLInputElement>("input[name=mode]")) radio.checked = radio.value === value("mode");
  for (const input of form().querySelectorAll<HTMLInputElement | HTMLSelectElement>("[data-path]")) {
    const v = asText(value(input.dataset.path!));
    if (input instanceof HTMLSelectElement && v && ![...input.options].some((o) => o.value === v)) input.append(h("option", { value: v }, v + " (not on this host)"));
    input.value = v;
  }
  for (const list of form().querySelectorAll<HTMLElement>("[data-list]")) renderList(list, asList(value(list.dataset.list!)));
  renderDisks(asList(value("storage.osdDevices")));
  applyMode();
  $("form-source").hidden = draft.source !== "yaml";
  formSaved();
}

/** A draft's value as a field holds it: the API stores a draft whatever JSON it holds (a number for the host name, an object for the interface). */
function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** A draft's list as a list of fields: one given as a single value is that one item. */
function asList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(asText) : value === undefined || value === null ? [] : [asText(value)];
}

/** The form as it is now is in the draft (filled from it, or taken into a node.yaml that was saved). */
export function formSaved(): void {
  saved = JSON.stringify(readForm());
}

export function formEdited(): boolean {
  return JSON.stringify(readForm()) !== saved;
}

function defaultFor(path: string): unknown {
  const { defaults, host } = state.options!;
  if (path !== "network.address") return getPath(defaults, path);
  const nic = host.interfaces.find((i) => i.name === defaults.network.interface);
  return nic && nic.addresses[0];
}

export function readForm(): Tree {
  const config: Tree = {};
  if (currentMode()) config.mode = currentMode();
  for (const input of form().querySelectorAll<HTMLInputElement | HTMLSelectElement>("[data-path]")) if (applies(input) && input.value.trim()) setPath(config, input.dataset.path!, input.value.trim());
  for (const list of form().querySelectorAll<HTMLElement>("[data-list]")) {
    const items = listValues(list).map((v) => v.replace(/\s+/g, " ").trim()).filter(Boolean);
    if (items.length) setPath(config, list.dataset.list!, items);
  }
  const disks = [...form().querySelectorAll<HTMLInputElement>("[data-disk]:checked")].map((d) => d.value);
  if (disks.length) setPath(config, "storage.osdDevices", disks);
  return config;
}

export function applyMode(): void {
  for (const scope of form().querySelectorAll<HTMLElement>("[data-modes]")) scope.hidden = !applies(scope);
}

function listValues(list: HTMLElement): string[] {
  return [...list.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("[data-item-of]")].map((input) => input.value);
}

function renderList(list: HTMLElement, values: string[]): void {
  const path = list.dataset.list!;
  const item = list.dataset.item!;
  const multiline = "multiline" in list.dataset;
  const rows = (values.length ? values : [""]).map((value, i) => {
    const id = "f-" + path + "-" + i;
    const input = h(multiline ? "textarea" : "input", { id, "data-field": path + "[" + i + "]", "data-item-of": path, rows: multiline ? 3 : null, spellcheck: "false", autocomplete: "off" });
    input.value = value;
    return h("li", { class: "list-row" },
      h("label", { for: id, class: "sr" }, item + " " + (i + 1)), input,
      h("button", { type: "button", class: "quiet", onclick: () => removeRow(list, i) }, "Remove", h("span", { class: "sr" }, " " + item + " " + (i + 1))));
  });
  fill(list, list.querySelector("legend"), h("ul", { class: "rows" }, rows), h("button", { type: "button", class: "quiet", onclick: () => addRow(list) }, "Add " + item));
}

function addRow(list: HTMLElement): void {
  renderList(list, [...listValues(list), ""]);
  [...list.querySelectorAll<HTMLElement>("[data-item-of]")].pop()!.focus();
}

function removeRow(list: HTMLElement, index: number): void {
  const values = listValues(list).filter((_, i) => i !== index);
  renderList(list, values);
  list.querySelectorAll<HTMLElement>("[data-item-of]")[Math.min(index, Math.max(values.length - 1, 0))]!.focus();
}

function renderDisks(selected: string[]): void {
  const disks: DiskRow[] = state.options!.host.disks;
  const named = (name: string) => disksNamed(disks as Disk[], name);
  // A name several disks share (one NVMe controller's serial) ticks none of them: it is a row of its own, with its error.
  const unknown = selected.filter((name) => named(name).length !== 1).map((path): DiskRow => ({ path, name: path, unknown: true, sharedBy: named(path).map((d) => d.path) }));
  const box = $("disks");
  fill(box, box.querySelector("legend"), box.querySelector(".help"), [...disks, ...unknown].map((disk) => {
    const id = "disk-" + (disk.unknown ? "other-" : "") + disk.name.replace(/\W/g, "_");
    const chosen = selected.findIndex((name) => disk.unknown ? name === disk.path : named(name).length === 1 && named(name)[0] === disk);
    const about = disk.unknown ? (disk.sharedBy!.length ? "names more than one disk: " + disk.sharedBy!.join(", ") : "not a disk on this host") : [diskFacts(disk as Disk) + ".", stableNote(disk as Disk), disk.inUse ? "In use: " + (disk.usage || "yes") : "Unused"].filter(Boolean).join(" ");
    return h("div", { class: "choice" + (disk.inUse ? " off" : "") },
      h("input", { type: "checkbox", id, value: chosen >= 0 ? selected[chosen] : disk.path, "data-disk": true, "data-field": chosen >= 0 ? "storage.osdDevices[" + chosen + "]" : null, checked: chosen >= 0, disabled: disk.inUse && chosen < 0, "aria-describedby": id + "-help h-disks" }),
      h("div", {}, h("label", { for: id }, disk.path), h("p", { class: "help", id: id + "-help" }, about)));
  }));
}

/** Errors of steps the person has not saved yet would only nag. */
export function visibleErrors(): Schemas["FieldError"][] {
  if (!state.draft) return [];
  return state.draft.source === "yaml" ? state.draft.errors : state.draft.errors.filter((e) => stepOf(e.field) <= state.shownUpTo);
}
