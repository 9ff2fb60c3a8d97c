/** The support bundle as a download, offered in the header and beside a failed verdict: each control says while it downloads, and why it did not. */
import type { Failure } from "./api.ts";
import { h, saveFile } from "./dom.ts";
import { fetchSupportBundle } from "./store.ts";
import { visible } from "../core/common/printable.ts";

/** A control of its own (`id` its prefix): the button and the line that says how its download goes. */
export function bundleControl(id: string): HTMLElement {
  const said = h("span", { id: id + "-said", class: "said", role: "status" });
  const button = h("button", { type: "button", id: id + "-button", "aria-describedby": id + "-said", onclick: () => downloadBundle(button, said) }, "Download support bundle");
  return h("span", { id, class: "bundle" }, button, said);
}

/** One download; a click meanwhile is ignored, and the button stays where focus is (aria-disabled, not disabled). */
export async function downloadBundle(button: HTMLElement, said: HTMLElement): Promise<void> {
  if (button.getAttribute("aria-disabled") === "true") return;
  button.setAttribute("aria-disabled", "true");
  said.className = "said";
  said.textContent = "Downloading the support bundle…";
  try {
    const { blob, name } = await fetchSupportBundle();
    saveFile(blob, name);
    said.textContent = "Support bundle downloaded.";
  } catch (err) {
    const problem = err as Failure;
    // A refused code already shows the sign-in, which says why.
    if (problem.status === 401 || problem.status === 429) return void (said.textContent = "");
    said.className = "said error";
    said.textContent = visible("The support bundle did not download: " + (problem.status ? problem.message : "the installer did not answer (" + problem.message + "). Check that it still runs, then try again."));
  } finally {
    button.removeAttribute("aria-disabled");
  }
}
