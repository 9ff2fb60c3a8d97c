/** A person's actions: one at a time, a failure shown in the notice rather than thrown. */
import type { Failure } from "./api.ts";
import { notice } from "./dom.ts";
import { exclusive } from "./store.ts";

/** A refused code already shows the sign-in; anything else is told in the notice. */
export function report(err: Failure | undefined): void {
  if (err && (err.status === 401 || err.status === 429)) return;
  notice(err && err.status ? err.message : "The installer did not answer (" + (err && err.message) + "). Check that it still runs, then try again.");
}

export function guard<A extends unknown[]>(action: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return (...args) =>
    exclusive(async () => {
      notice("");
      try {
        await action(...args);
      } catch (err) {
        report(err as Failure);
      }
    });
}
