/** An installed init node hands out the join token (SPEC §6): shown masked, with a copy button that works on plain http too. */
import { copyField } from "./copy.ts";
import { $, fill, h } from "./dom.ts";
import { call, state } from "./store.ts";

export async function showJoinToken(): Promise<void> {
  const s = state.status!;
  const card = $("join-token");
  if (s.phase !== "done" || s.mode !== "hyperconverged-init") return void (card.hidden = true);
  if (!card.hidden) return;
  const join = await call("/cluster/join-token");
  $<HTMLInputElement>("join-token-value").value = join.token;
  reveal(false);
  $("join-token-copied").textContent = "";
  fill($("join-token-facts"), [["Join address", join.joinAddress], ["Cluster", join.cluster], ["Release", join.release || "unknown"]].map(([term, value]) =>
    h("div", {}, h("dt", {}, term), h("dd", {}, h("code", {}, value)))));
  card.hidden = false;
}

export function toggleToken(): void {
  reveal($<HTMLInputElement>("join-token-value").type === "password");
}

function reveal(shown: boolean): void {
  $<HTMLInputElement>("join-token-value").type = shown ? "text" : "password";
  $("join-token-show").textContent = shown ? "Hide" : "Show";
}

export function copyToken(): Promise<void> {
  return copyField($<HTMLInputElement>("join-token-value"), $("join-token-copied"), () => reveal(true));
}
