/** After sign-in: load status, options and draft, open the view the address names or the right one, keep the status fresh. */
import { notice } from "./dom.ts";
import { renderErrors } from "./field-errors.ts";
import { fillForm, setupForm, steps } from "./form-fields.ts";
import { report } from "./guard.ts";
import { showFirst } from "./navigate.ts";
import { renderStatus } from "./status.ts";
import { keepPolling, load, poll, state } from "./store.ts";

export async function enter(): Promise<void> {
  await load(steps().length);
  setupForm();
  fillForm(state.draft!);
  renderErrors();
  renderStatus(true);
  keepPolling(tick);
  showFirst();
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
