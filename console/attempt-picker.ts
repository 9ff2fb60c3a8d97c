/** Every attempt reachable: the attempts so far, newest first; choosing one shows its steps, log, verdict and report. */
import { $, fill, h } from "./dom.ts";
import { call } from "./store.ts";
import { utcDateTime } from "./time.ts";

const KIND_TEXT = { install: "install", "recheck-readiness": "readiness recheck" } as const;

export async function renderPicker(shown: number): Promise<void> {
  const { attempts } = await call("/install/attempts");
  fill($<HTMLSelectElement>("attempt-picker"), attempts.slice().reverse().map((a) =>
    h("option", { value: a.attempt, selected: a.attempt === shown }, "Attempt " + a.attempt + ": " + KIND_TEXT[a.kind] + ", " + a.state + ", started " + utcDateTime(a.startedAt))));
  $("attempt-pick").hidden = attempts.length < 2;
}
