/** Sign-in with the install code (sessionStorage only), the 401 message and the 429 countdown (kept for the tab: a reload still shows it). */
import type { Failure } from "./api.ts";
import { enter } from "./boot.ts";
import { $, plural, showView } from "./dom.ts";
import { lockedUntil, noteLockout, signIn as tryCode } from "./store.ts";
import { visible } from "../core/common/printable.ts";

let lockTimer = 0;

/** A refusal, or (after a reload) the lockout this tab was told of and that still stands. */
export function showSignIn(problem?: Failure): void {
  showView("sign-in");
  $("sign-in-error").hidden = !problem;
  $("code").setAttribute("aria-invalid", String(Boolean(problem && problem.status === 401)));
  if (problem && problem.status === 429) lockOut(noteLockout(problem.retryAfter || 30));
  else if (problem && problem.status === 401) say("That install code is wrong. It is shown in the banner on the node's console, and by node installer.js code there.");
  else if (problem) say(visible(problem.status ? problem.message : "The installer did not answer (" + problem.message + ")."));
  else if (lockedUntil()) lockOut(lockedUntil());
  $("code").focus();
}

/** The line under the code: a refusal in the error style, or news that is none. */
function say(text: string, error = true): void {
  const line = $("sign-in-error");
  line.textContent = text;
  line.classList.toggle("error", error);
  line.hidden = false;
}

function lockOut(until: number): void {
  const timer = $("lockout");
  say("Too many wrong install codes from this address: sign-in is locked for " + plural(Math.ceil((until - Date.now()) / 1000), "second") + ".");
  $<HTMLButtonElement>("sign-in-button").disabled = true;
  timer.hidden = false;
  clearInterval(lockTimer);
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left > 0) {
      timer.textContent = "Try again in " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + ".";
      return;
    }
    clearInterval(lockTimer);
    timer.hidden = true;
    $<HTMLButtonElement>("sign-in-button").disabled = false;
    say("You can try again now.", false);
  };
  tick();
  lockTimer = setInterval(tick, 1000);
}

export async function signIn(): Promise<void> {
  const code = $<HTMLInputElement>("code").value.trim();
  if (!code) {
    say("Enter the install code.");
    return $("code").focus();
  }
  const problem = await tryCode(code);
  if (problem) return showSignIn(problem);
  $<HTMLInputElement>("code").value = "";
  $("sign-in-error").hidden = true;
  await enter();
}
