/** The screen on show as the page's address (`?step=network`, `?attempt=2`): one entry of the browser's history per step or attempt moved to. */
import { steps } from "./form-fields.ts";
import { state } from "./store.ts";

/** A screen an address names: a step of the form, or an attempt in the install view. */
export type Place = { step: number } | { attempt: number };

/** How the screen an action ends on goes into the history, once its synchronous part is over; undefined while none waits. */
let writing: "pushState" | "replaceState" | undefined;

export function placeOf(search: string): Place | undefined {
  const query = new URLSearchParams(search);
  const step = steps().findIndex((section) => nameOf(section) === query.get("step"));
  if (step >= 0) return { step };
  const attempt = Number(query.get("attempt"));
  return Number.isInteger(attempt) && attempt > 0 ? { attempt } : undefined;
}

function nameOf(section: HTMLElement): string {
  return section.dataset.title!.toLowerCase();
}

function addressOf(): string | undefined {
  if (state.view === "install" && state.run) return "?attempt=" + state.run.attempt;
  if (state.view === "configure") return "?step=" + nameOf(steps()[state.step]!);
  return undefined;
}

/**
 * The screen shown as the action ends, as an entry of its own, or in place of the current one ("replaceState": the
 * first after loading, what stays when Back or Forward cannot show the entry's). Screens an action shows on its way
 * (the form, then its first step) make one entry.
 */
export function remember(how: "pushState" | "replaceState" = "pushState"): void {
  if (!writing) queueMicrotask(write);
  if (writing !== "replaceState") writing = how;
}

function write(): void {
  const address = addressOf();
  if (address !== undefined && address !== location.search) history[writing!](null, "", address);
  writing = undefined;
}
