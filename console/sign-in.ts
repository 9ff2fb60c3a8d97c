/** Sign-in with the install code (sessionStorage only), the 401 message and the 429 countdown. */
import type { Failure } from "./api.ts";
import { enter } from "./boot.ts";
import { $, fill, plural, showView } from "./dom.ts";
import { signIn as tryCode } from "./store.ts";
import { visible } from "../core/common/printable.ts";

let lockTimer = 0;

export function showSignIn(problem?: Failure): void {
  showView("sign-in");
  const error = $("sign-in-error");
  error.hidden = !problem;
  $("code").setAttribute("aria-invalid", String(Boolean(problem && problem.status === 401)));
  if (problem && problem.status === 429) lockOut(problem.retryAfter || 30);
  else if (problem && problem.status === 401) error.textContent = "That install code is wrong. It is shown in the banner on the node's console, and by node installer.js code there.";
  else if (problem) error.textContent = visible(problem.status ? problem.message : "The installer did not answer (" + problem.message + ").");
  $("code").focus();
}

function lockOut(seconds: number): void {
  const until = Date.now() + seconds * 1000;
  const error = $("sign-in-error");
  const timer = $("lockout");
  error.textContent = "Too many wrong install codes from this address: sign-in is locked for " + plural(seconds, "second") + ".";
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
    error.textContent = "You can try again now.";
  };
  tick();
  lockTimer = setInterval(tick, 1000);
}

export async function signIn(): Promise<void> {
  const code = $<HTMLInputElement>("code").value.trim();
  if (!code) {
    fill($("sign-in-error"), "Enter the install code.").hidden = false;
    return $("code").focus();
  }
  const problem = await tryCode(code);
  if (problem) return showSignIn(problem);
  $<HTMLInputElement>("code").value = "";
  $("sign-in-error").hidden = true;
  await enter();
}
