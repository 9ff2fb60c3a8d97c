/**
 * The console's one store: its state and the only actions that change it. Views read `state`, call actions, and learn
 * of what changed without asking (the event stream, a background refresh, a refused code) through `subscribe`.
 * No DOM here: the store decides, the views show.
 */
import { serverNow } from "./time.ts";
import { readEvents, request, requestFile, type Answer, type Call, type Failure, type Method, type Operation, type PathOf, type Schemas } from "./api.ts";

const CODE_KEY = "stratum.installCode";
/** When a sign-in lockout ends (epoch ms, this browser's clock): a reload during it still shows its countdown. */
const LOCK_KEY = "stratum.lockedUntil";

export type StepName = NonNullable<Schemas["InstallEvent"]["step"]>;
type StepState = "running" | "succeeded" | "failed";
type View = "sign-in" | "configure" | "install";

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
  /** When its latest event was written (epoch ms, the installer's clock). */
  lastEventAt?: number;
  /** When its event stream broke off (epoch ms, the installer's clock), until it is open again: its clocks stop there. */
  brokenAt?: number;
  /** The newest attempt when this one was opened: only its verdict offers a next action. */
  latest: boolean;
  /** Chosen in the attempt picker: focus stays there. */
  picked: boolean;
}

/** What the views hear about; each is told after the state already holds it. */
export type Change =
  | { type: "status" }
  | { type: "follow"; focus: boolean }
  | { type: "event"; event: Schemas["InstallEvent"] }
  | { type: "unfollow" }
  | { type: "reconnecting"; stopping: boolean }
  | { type: "signed-out"; problem?: Failure }
  | { type: "failed"; error: Failure };

const store = {
  code: sessionStorage.getItem(CODE_KEY) || "",
  view: "sign-in" as View,
  status: null as Schemas["Status"] | null,
  options: null as Schemas["Options"] | null,
  draft: null as Schemas["DraftView"] | null,
  /** The ETag of `draft`: a save names it (If-Match), so a draft changed elsewhere since is refused, not overwritten. */
  draftEtag: "",
  step: 0,
  /** The draft's errors of steps up to this one are shown. */
  shownUpTo: -1,
  yamlDirty: false,
  run: null as Run | null,
  busy: false,
  offline: false,
  /** When the installer last answered (epoch ms, its clock): while it does not, the page's clocks stop there. */
  heardAt: 0,
};
let following: AbortController | null = null;
let polling = 0;
const listeners: ((change: Change) => void)[] = [];

/** The console's state, read-only outside this module. */
export const state: Readonly<typeof store> = store;

export function subscribe(listener: (change: Change) => void): void {
  listeners.push(listener);
}

function tell(change: Change): void {
  for (const listener of listeners) listener(change);
}

/** A refused code ends the session. */
function checkRefusal(problem: Failure): void {
  if (problem.status === 401 || problem.status === 429) signOut(problem);
}

/** A failure in the background, told to the views. */
function failed(error: Failure): void {
  tell({ type: "failed", error });
}

/** One API call with the session's code, its answer and ETag; a refused code ends the session, and every refusal throws its Problem. */
export async function send<P extends PathOf<M>, M extends Method = "get">(path: P, options?: Call<Operation<P, M>, M>): Promise<{ data: Answer<Operation<P, M>>; etag: string }> {
  const result = await request(store.code, path, options);
  if (result.ok) return result;
  checkRefusal(result.problem);
  throw result.problem;
}

export async function call<P extends PathOf<M>, M extends Method = "get">(path: P, options?: Call<Operation<P, M>, M>): Promise<Answer<Operation<P, M>>> {
  return (await send(path, options)).data;
}

/** The support bundle (`GET /support-bundle`) with the session's code, to be saved under `name`; a refused code ends the session, and every refusal throws its Problem. */
export async function fetchSupportBundle(): Promise<{ blob: Blob; name: string }> {
  const result = await requestFile(store.code, "/support-bundle", "stratum-support.tar.gz");
  if (result.ok) return result.data;
  checkRefusal(result.problem);
  throw result.problem;
}

/** Tries the code; kept (for this tab only) when the installer takes it, else the refusal is returned. */
export async function signIn(code: string): Promise<Failure | undefined> {
  const result = await request(code, "/status");
  if (!result.ok) return result.problem;
  store.code = code;
  sessionStorage.setItem(CODE_KEY, code);
  return undefined;
}

/** A lockout (429) of `seconds`, kept for this tab until it ends; returns when it ends. */
export function noteLockout(seconds: number): number {
  const until = Date.now() + seconds * 1000;
  sessionStorage.setItem(LOCK_KEY, String(until));
  return until;
}

/** When the lockout this tab was told of ends, or 0 when none stands. */
export function lockedUntil(): number {
  const until = Number(sessionStorage.getItem(LOCK_KEY)) || 0;
  if (until > Date.now()) return until;
  sessionStorage.removeItem(LOCK_KEY);
  return 0;
}

export function signOut(problem?: Failure): void {
  sessionStorage.removeItem(CODE_KEY);
  store.code = "";
  stopFollowing();
  clearInterval(polling);
  store.view = "sign-in";
  tell({ type: "signed-out", problem });
}

/** After sign-in: what the console starts from. A saved draft shows its errors for every step (`stepCount`). */
export async function load(stepCount: number): Promise<Schemas["Status"]> {
  const [status, options, { data: draft, etag }] = await Promise.all([call("/status"), call("/options"), send("/config")]);
  Object.assign(store, { status, options, draft, draftEtag: etag, shownUpTo: draft.updatedAt ? stepCount : -1, yamlDirty: false });
  return status;
}

/** Keeps the status fresh every 3 s (`tick` decides whether to ask) until sign-out. */
export function keepPolling(tick: () => void): void {
  clearInterval(polling);
  polling = setInterval(tick, 3000);
}

/** One poll of the status; true when the installer answers again after it did not. */
export async function poll(): Promise<boolean> {
  try {
    await refreshStatus();
  } catch (err) {
    store.offline = !(err as Failure).status;
    throw err;
  }
  const back = store.offline;
  store.offline = false;
  store.heardAt = serverNow();
  return back;
}

/** An attempt started elsewhere (unattended, curl) while the person configures is followed at once. */
export async function refreshStatus(): Promise<void> {
  const known = store.status ? store.status.attempt : 0;
  store.status = await call("/status");
  tell({ type: "status" });
  if (store.view === "configure" && store.status.attempt > known) follow(store.status.attempt);
}

/** Opens an attempt, live while it runs; `focus` false when the person chose it in the picker and stays there. */
export function follow(attempt: number, focus = true): void {
  stopFollowing();
  const controller = new AbortController();
  following = controller;
  const run: Run = { attempt, kind: "install", steps: {}, times: {}, latest: attempt >= (store.status ? store.status.attempt : 0), picked: !focus };
  store.run = run;
  store.view = "install";
  // Until its events come again (the installer restarted, say), nothing says the attempt went on: its clocks wait.
  const broken = (stopping: boolean) => {
    run.brokenAt ??= serverNow();
    tell({ type: "reconnecting", stopping });
  };
  readEvents(store.code, attempt, controller.signal, onEvent, broken, () => (run.brokenAt = undefined)).catch((problem: Failure) => {
    checkRefusal(problem);
    failed(problem);
  });
  refreshStatus().catch(failed);
  tell({ type: "follow", focus });
}

function stopFollowing(): void {
  if (following) following.abort();
  following = null;
  tell({ type: "unfollow" });
}

/** What the events read here carry in `data`, which the API document leaves open. */
export type EventData = { kind: Run["kind"]; outcome: StepState; verdict: Schemas["Verdict"]; deadline?: string } & Omit<Schemas["Report"]["readinessHistory"][number], "time">;

function onEvent(event: Schemas["InstallEvent"]): void {
  const run = store.run!;
  const data = event.data as EventData;
  const at = Date.parse(event.time);
  if (event.type === "attempt.started") Object.assign(run, { kind: data.kind, span: { start: at } });
  if (event.type === "step.started") {
    run.steps[event.step!] = "running";
    run.times[event.step!] = { start: at };
    if (data && data.deadline) run.deadline = Date.parse(data.deadline);
  }
  if (event.type === "step.finished") {
    run.steps[event.step!] = data.outcome;
    run.times[event.step!]!.end = at;
  }
  if (event.type === "attempt.finished") {
    for (const step of Object.keys(run.steps) as StepName[]) {
      if (run.steps[step] !== "running") continue;
      run.steps[step] = "failed";
      // Cut short by a stop of the installer, whose next start wrote this verdict, maybe long after: it ended at its last event.
      run.times[step]!.end = run.lastEventAt ?? at;
    }
    if (run.span) run.span.end = at;
  }
  run.lastEventAt = at;
  store.heardAt = serverNow();
  tell({ type: "event", event });
}

/** The configure view, the install view left. */
export function configure(): void {
  stopFollowing();
  store.view = "configure";
}

export function setStep(index: number): void {
  store.step = index;
}

export function setYamlDirty(dirty: boolean): void {
  store.yamlDirty = dirty;
}

/** Errors of the steps up to `step` are shown from now on. */
export function showErrorsUpTo(step: number): void {
  store.shownUpTo = Math.max(store.shownUpTo, step);
}

/** The draft as the installer answered it, with its ETag. */
function keep({ data, etag }: { data: Schemas["DraftView"]; etag: string }): Schemas["DraftView"] {
  store.draftEtag = etag;
  return (store.draft = data);
}

/**
 * The form as the draft, in place of the draft the page holds (If-Match): one changed elsewhere since is refused
 * (PRECONDITION_FAILED), never overwritten. Errors of the steps up to this one are shown from now on.
 */
export async function saveStructured(config: Record<string, unknown>): Promise<Schemas["DraftView"]> {
  const draft = keep(await send("/config", { method: "put", body: config, ifMatch: store.draftEtag }));
  showErrorsUpTo(store.step);
  return draft;
}

/** node.yaml as the draft, in place of the draft the page holds (as saveStructured); its errors are all shown (`stepCount`). */
export async function saveYaml(yaml: string, stepCount: number): Promise<Schemas["DraftView"]> {
  const draft = keep(await send("/config", { method: "put", yaml, ifMatch: store.draftEtag }));
  store.yamlDirty = false;
  store.shownUpTo = stepCount;
  return draft;
}

/** The draft as saved now (by someone else, perhaps); `shownUpTo` to show its errors up to that step. */
export async function reloadDraft(shownUpTo?: number): Promise<Schemas["DraftView"]> {
  const draft = keep(await send("/config"));
  if (shownUpTo !== undefined) store.shownUpTo = shownUpTo;
  return draft;
}

/** An attempt already runs or ran: show the newest. */
export async function followLatest(): Promise<void> {
  store.status = await call("/status");
  follow(store.status.attempt);
}

/** One person's action at a time: another started meanwhile is ignored. */
export async function exclusive(action: () => Promise<void>): Promise<void> {
  if (store.busy) return;
  store.busy = true;
  try {
    await action();
  } finally {
    store.busy = false;
  }
}
