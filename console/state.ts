import type { Schemas } from "./api.ts";

export const CODE_KEY = "stratum.installCode";

export type StepName = NonNullable<Schemas["InstallEvent"]["step"]>;
export type StepState = "running" | "succeeded" | "failed";

/** Start and end (epoch ms, the installer's clock) of an attempt or a step; no end while it runs. */
export interface Span {
  start: number;
  end?: number;
}

/** The attempt the install view shows, as its events tell it. */
export interface Run {
  attempt: number;
  kind: Schemas["Verdict"]["kind"];
  steps: Partial<Record<StepName, StepState>>;
  times: Partial<Record<StepName, Span>>;
  span?: Span;
  /** When the readiness wait ends (epoch ms). */
  deadline?: number;
  /** The newest attempt when this one was opened: only its verdict offers a next action. */
  latest: boolean;
  /** Chosen in the attempt picker: focus stays there. */
  picked: boolean;
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
