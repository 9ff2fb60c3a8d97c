/** The console's entry: wires the page's fixed controls, then signs in or resumes the session. */
import { guard, report } from "./actions.ts";
import { enter } from "./boot.ts";
import { $ } from "./dom.ts";
import { applyMode, goStep, saveForm } from "./form.ts";
import { checkCluster } from "./join-check.ts";
import { copyField } from "./copy.ts";
import { follow } from "./install-view.ts";
import { copyToken, toggleToken } from "./join-token.ts";
import { updateInstallButton } from "./review.ts";
import { showSignIn, signIn, signOut } from "./sign-in.ts";
import { state } from "./state.ts";
import { install } from "./status.ts";
import { showCertificate } from "./tls.ts";
import { onTabKey, renderLineNumbers, saveYaml, selectTab, syncGutter } from "./yaml-tab.ts";

document.addEventListener("submit", (event) => event.preventDefault());
$("sign-in-form").addEventListener("submit", guard(signIn));
$("sign-out").addEventListener("click", () => signOut());
$("config-form").addEventListener("submit", guard(saveForm));
$("back").addEventListener("click", () => goStep(state.step - 1));
$("modes").addEventListener("change", applyMode);
$("yaml-form").addEventListener("submit", guard(saveYaml));
$("yaml").addEventListener("input", () => {
  state.yamlDirty = true;
  renderLineNumbers();
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
$("tls-copy").addEventListener("click", () => copyField($<HTMLInputElement>("tls-fingerprint"), $("tls-copied")).catch(report));
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
