/** After sign-in: load status, options and draft, open the right view, keep the status fresh. */
import { showConfigure } from "./configure.ts";
import { notice } from "./dom.ts";
import { renderErrors } from "./field-errors.ts";
import { fillForm, setupForm, steps } from "./form-fields.ts";
import { report } from "./guard.ts";
import { renderStatus } from "./status.ts";
import { goStep } from "./stepper.ts";
import { follow, keepPolling, load, poll, state } from "./store.ts";

export async function enter(): Promise<void> {
  const status = await load(steps().length);
  setupForm();
  fillForm(state.draft!);
  renderErrors();
  renderStatus(true);
  keepPolling(tick);
  if (status.phase !== "configuring") return follow(status.attempt);
  showConfigure();
  goStep(state.step);
}

/** Keeps blockers, validity and the unattended notice current; a notice that the installer is gone clears once it answers again. */
function tick(): void {
  if (state.busy || !state.code) return;
  poll().then(
    (back) => {
      if (back) notice("");
    },
    report,
  );
}
