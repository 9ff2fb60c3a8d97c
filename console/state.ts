import type { Schemas } from "./api.ts";

export const CODE_KEY = "stratum.installCode";

export type StepName = NonNullable<Schemas["InstallEvent"]["step"]>;
export type StepState = "running" | "succeeded" | "failed";

/** The attempt the install view follows, as its events tell it. */
export interface Run {
  attempt: number;
  kind: Schemas["Verdict"]["kind"];
  steps: Partial<Record<StepName, StepState>>;
}

/** The console's one state: the session, what the API last answered (set once signed in) and where the person is. */
export const state = {
  code: sessionStorage.getItem(CODE_KEY) || "",
  status: null as Schemas["Status"] | null,
  options: null as Schemas["Options"] | null,
  draft: null as Schemas["DraftView"] | null,
  step: 0,
  shownUpTo: -1,
  yamlDirty: false,
  follow: null as AbortController | null,
  run: null as Run | null,
  poll: 0,
  busy: false,
  offline: false,
  unattendedKey: "",
};
