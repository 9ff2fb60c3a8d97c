/** Back, Forward and a reload: the step or attempt the address names, where the console would show it anyway. */
import { placeOf, remember, type Place } from "./address.ts";
import { showConfigure } from "./configure.ts";
import { goStep } from "./stepper.ts";
import { follow, state } from "./store.ts";

/** No attempt runs (shown running, or so the status says) and the node is not installed: the form may be shown. */
function mayConfigure(): boolean {
  const run = state.run;
  const running = state.view === "install" && run !== null && run.latest && !(run.span && run.span.end !== undefined);
  return !running && (state.status!.phase === "configuring" || state.status!.phase === "failed");
}

/** Shows `place`, unless the console would not show it now; false then, and nothing changes. */
function show(place: Place | undefined): boolean {
  if (!place) return false;
  if ("attempt" in place) {
    if (place.attempt > state.status!.attempt) return false;
    if (state.view !== "install" || state.run!.attempt !== place.attempt) follow(place.attempt);
    return true;
  }
  if (!mayConfigure()) return false;
  if (state.view === "configure" && state.step === place.step) return true;
  if (state.view !== "configure") showConfigure();
  goStep(place.step);
  return true;
}

/** After sign-in: what the address names if it may be shown, else the latest attempt once one started, else the form. */
export function showFirst(): void {
  remember("replaceState");
  if (show(placeOf(location.search))) return;
  if (state.status!.phase !== "configuring") return follow(state.status!.attempt);
  showConfigure();
  goStep(state.step);
}

/** Back or Forward: the entry's step or attempt; one that may not be shown now is made to name what stays on screen. */
export function onHistory(): void {
  if (state.view === "sign-in" || !state.status) return;
  remember("replaceState");
  show(placeOf(location.search));
}
