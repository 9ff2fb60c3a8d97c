/** The console's entry: wires the page's fixed controls and the store's news to the views, then signs in or resumes the session. */
import { enter } from "./boot.ts";
import { reloadTheDraft, saveForm, saveYaml } from "./configure.ts";
import { copyField } from "./copy.ts";
import { $, announce } from "./dom.ts";
import { applyMode } from "./form-fields.ts";
import { guard, report } from "./guard.ts";
import { install } from "./install-actions.ts";
import { leaveRun, showEvent, showRun } from "./install-view.ts";
import { checkCluster } from "./join-check.ts";
import { copyToken, toggleToken } from "./join-token.ts";
import { onHistory } from "./navigate.ts";
import { updateInstallButton } from "./review.ts";
import { showSignIn, signIn } from "./sign-in.ts";
import { renderInstallButton, renderStatus } from "./status.ts";
import { downloadBundle } from "./support-bundle.ts";
import { goStep } from "./stepper.ts";
import { follow, setYamlDirty, signOut, state, subscribe } from "./store.ts";
import { showCertificate } from "./tls.ts";
import { onTabKey, renderLineNumbers, selectTab, syncGutter } from "./yaml-tab.ts";

subscribe((change) => {
  switch (change.type) {
    case "status":
      return renderStatus();
    case "follow":
      return showRun(change.focus);
    case "event":
      return showEvent(change.event);
    case "unfollow":
      return leaveRun();
    case "reconnecting":
      return announce(change.stopping ? "The installer is stopping (a restart, or a stop); reconnecting when it answers again." : "The event stream broke off; reconnecting.");
    case "signed-out":
      return showSignIn(change.problem);
    case "failed":
      return report(change.error);
  }
});

document.addEventListener("submit", (event) => event.preventDefault());
window.addEventListener("popstate", onHistory);
$("sign-in-form").addEventListener("submit", guard(signIn));
$("sign-out").addEventListener("click", () => signOut());
$("bundle-button").addEventListener("click", () => downloadBundle($("bundle-button"), $("bundle-said")));
$("config-form").addEventListener("submit", guard(saveForm));
// a row removed changes the form without an input event
for (const type of ["input", "change", "click"]) $("config-form").addEventListener(type, renderInstallButton);
$("back").addEventListener("click", () => goStep(state.step - 1));
$("modes").addEventListener("change", applyMode);
$("yaml-form").addEventListener("submit", guard(saveYaml));
$("draft-reload").addEventListener("click", guard(reloadTheDraft));
$("yaml").addEventListener("input", () => {
  setYamlDirty(true);
  renderLineNumbers();
  renderInstallButton();
});
$("yaml").addEventListener("scroll", syncGutter);
for (const tab of ["form", "yaml"] as const) {
  $("tab-" + tab).addEventListener("click", () => selectTab(tab));
  $("tab-" + tab).addEventListener("keydown", onTabKey);
}
$("install-button").addEventListener("click", guard(install));
$("show-attempts").addEventListener("click", () => follow(state.status!.attempt));
$("attempt-picker").addEventListener("change", (event) => follow(Number((event.target as HTMLSelectElement).value), false));
$("erase-confirm").addEventListener("change", updateInstallButton);
$("join-check-button").addEventListener("click", guard(checkCluster));
$("join-token-show").addEventListener("click", toggleToken);
$("join-token-copy").addEventListener("click", () => copyToken().catch(report));
$("tls-copy").addEventListener("click", () => copyField($<HTMLTextAreaElement>("tls-fingerprint"), $("tls-copied")).catch(report));
// Without it the page still works: the banner on the node's console shows the fingerprint too.
showCertificate().catch(() => undefined);
if (state.code) {
  enter().catch((err) => {
    if (err.status) return;
    showSignIn();
    report(err);
  });
} else {
  showSignIn();
}
