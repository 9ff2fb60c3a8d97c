/** After sign-in: load status, options and draft, open the right view, keep the status fresh. */
import { report } from "./actions.ts";
import { api } from "./api.ts";
import { renderErrors } from "./field-errors.ts";
import { fillForm, goStep, setupForm, showStep, steps } from "./form.ts";
import { notice, showView } from "./dom.ts";
import { follow, stopFollowing } from "./install-view.ts";
import { state } from "./state.ts";
import { refreshStatus, renderStatus } from "./status.ts";
import { selectTab } from "./yaml-tab.ts";

export async function enter(): Promise<void> {
  const [status, options, draft] = await Promise.all([api("/status"), api("/options"), api("/config")]);
  Object.assign(state, { status, options, draft, shownUpTo: draft.updatedAt ? steps().length : -1, yamlDirty: false, unattendedKey: "" });
  setupForm();
  fillForm(draft);
  renderErrors();
  renderStatus();
  clearInterval(state.poll);
  state.poll = setInterval(poll, 3000);
  if (status.phase !== "configuring") return follow(status.attempt);
  showConfigure();
  goStep(state.step);
}

/** Keeps blockers, validity and the unattended notice current; a notice that the installer is gone clears once it answers again. */
function poll(): void {
  if (state.busy || !state.code) return;
  refreshStatus().then(
    () => {
      if (state.offline) notice("");
      state.offline = false;
    },
    (err) => {
      state.offline = !err.status;
      report(err);
    },
  );
}

export function showConfigure(): void {
  stopFollowing();
  showView("configure");
  showStep(state.step);
  selectTab(state.draft!.source === "yaml" ? "yaml" : "form");
  renderStatus();
}
