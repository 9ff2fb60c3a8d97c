/** The join check (SPEC §6): "Check the cluster" on a join draft's cluster step, and the checks as a list wherever they are shown. */
import type { Failure, Schemas } from "./api.ts";
import { saveDraft } from "./configure.ts";
import { $, announce, fill, h, plural } from "./dom.ts";
import { focusField, renderErrors } from "./field-errors.ts";
import { stepOf } from "./form-fields.ts";
import { call, showErrorsUpTo } from "./store.ts";
import { serverNow, utcTime } from "./time.ts";

type Check = Schemas["JoinCheck"];

const CHECK_TEXT: Record<Check["name"], string> = {
  reachable: "Reachable over TLS",
  fingerprint: "Certificate is the token's",
  "join-info": "Join info answered",
  cluster: "Cluster name",
  release: "Release",
  clock: "Clock",
  token: "Token accepted",
};

let listSeq = 0;

/** Each check with its outcome; one an earlier failure left nothing to ask is "not checked", said once (its detail opens with it too). */
export function renderJoinChecks(checks: Check[], title: string): HTMLElement[] {
  const id = "join-checks-" + ++listSeq;
  const failed = checks.filter((c) => c.code).length;
  return [
    h("h4", { id }, title + ": " + (failed ? plural(failed, "check") + " failed" : "every check passed")),
    h("ul", { class: "join-checks", "aria-labelledby": id }, checks.map((c) => {
      const outcome = c.ok ? "passed" : c.code ? "failed" : "not checked";
      return h("li", { class: outcome.replace(" ", "-"), "data-check": c.name },
        h("span", { class: "check-name" }, CHECK_TEXT[c.name]), " ", h("span", { class: "outcome" }, "(" + outcome + ")"),
        c.code ? [" ", h("code", {}, c.code)] : null,
        h("span", { class: "detail" }, c.ok || c.code ? c.detail : c.detail.replace(/^not checked: /, "")));
    })),
  ];
}

/** Saves the form (the check reads the saved draft), then checks; a draft the check cannot use shows its field errors. */
export async function checkCluster(): Promise<void> {
  const button = $<HTMLButtonElement>("join-check-button");
  const result = $("join-check-result");
  button.disabled = true;
  result.setAttribute("aria-busy", "true");
  fill(result, h("p", {}, "Checking the cluster…"));
  try {
    await saveDraft();
    const { ok, checks } = await call("/cluster/join-check", { method: "post" });
    fill(result, renderJoinChecks(checks, "Cluster check"), h("p", { class: "help" }, "Checked at " + utcTime(serverNow()) + " UTC."));
    announce("Cluster check " + (ok ? "passed." : "failed: " + checks.filter((c) => c.code).map((c) => c.code).join(", ") + "."));
  } catch (err) {
    const problem = err as Failure;
    if (problem.code !== "INVALID_CONFIG") {
      fill(result);
      throw err;
    }
    const errors = problem.errors || [];
    fill(result, h("p", { class: "error" }, problem.message));
    showErrorsUpTo(Math.max(-1, ...errors.map((e) => stepOf(e.field))));
    renderErrors();
    if (errors.length) focusField(errors[0]!.field);
  } finally {
    button.disabled = false;
    result.removeAttribute("aria-busy");
  }
}
