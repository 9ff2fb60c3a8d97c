import { setTimeout as sleep } from "node:timers/promises";
import { capText } from "../../common/cut-text.ts";
import { type Parser, parseAnswer, request } from "../../http/client.ts";
import type { ReadinessCheck, ReadinessObservation } from "../../state/records.ts";
import { StepFailure } from "../verdict.ts";
import { monotonicOf, type StepContext } from "./context.ts";

interface ReadinessOptions {
  url: string;
  timeoutSeconds: number;
  intervalSeconds: number;
  /** The wait's end the step announced, by the step's monotonic clock (StepContext.monotonic); otherwise timeoutSeconds from now. */
  deadline?: number;
}

const POLL_TIMEOUT_MS = 5_000;
/** The least the first poll gets, when the wait's end came before it. */
const FIRST_POLL_MS = 2_000;
const MAX_BODY = 1024 * 1024;

type Observation = Omit<ReadinessObservation, "time">;

/**
 * What of a cloud's answer is kept, at most: every change of it is an event, a line of the service's log and an entry
 * of the attempt's history (200 kept), so a cloud that says a megabyte at each poll fills no disk.
 */
export const READINESS_CAPS = { stateBytes: 64, detailBytes: 2048, checks: 32, checkNameBytes: 128, checkStatusBytes: 64, checkDetailBytes: 512 } as const;

const cap = (text: string, maxBytes: number) => capText(text, maxBytes).text;

/** The cloud's answer: a `state`, and what else it says that the history keeps (checks that are not checks are dropped), each capped. */
const ReadinessAnswer: Parser<Observation> = {
  parse(value) {
    const parsed = (value ?? {}) as { state?: unknown; detail?: unknown; checks?: unknown };
    if (typeof parsed.state !== "string") throw new Error('the answer has no "state"');
    const checks = Array.isArray(parsed.checks) ? keptChecks(parsed.checks.filter(isCheck)) : undefined;
    const more = checks && checks.dropped > 0 ? `; ${checks.dropped} more checks not kept, ${checks.droppedNotReady > 0 ? `${checks.droppedNotReady} of them not ready` : "all ready"}` : "";
    const detail = typeof parsed.detail === "string" ? cap(parsed.detail, READINESS_CAPS.detailBytes) + more : more ? more.slice(2) : undefined;
    return {
      state: cap(parsed.state, READINESS_CAPS.stateBytes),
      ...(detail !== undefined ? { detail } : {}),
      ...(checks ? { checks: checks.kept.map(cleanCheck) } : {}),
    };
  },
};

/**
 * One poll, with one deadline for the whole request (connect, headers, body) and a body limit.
 * Anything but a JSON answer with a `state` is reported as UNREACHABLE with the reason, never thrown.
 */
export async function pollReadiness(url: string, signal: AbortSignal, budgetMs: number, onCertificate?: (sha256: string) => void): Promise<Observation> {
  try {
    // The cloud's endpoint on a fresh node has a self-signed certificate: it is read, not verified.
    const answer = await request({ url, trust: "any", headers: { accept: "application/json" }, timeoutMs: Math.max(0, Math.ceil(budgetMs)), maxBytes: MAX_BODY, signal });
    if (answer.certificate) onCertificate?.(answer.certificate);
    return parseAnswer(answer, ReadinessAnswer, new URL(url).host);
  } catch (error) {
    return { state: "UNREACHABLE", detail: (error as Error).message };
  }
}

function isCheck(value: unknown): value is ReadinessCheck {
  const check = value as ReadinessCheck;
  return typeof check === "object" && check !== null && typeof check.name === "string" && typeof check.status === "string";
}

/**
 * The checks kept, in the cloud's order: those not ready first of all (a timeout's verdict names them, and a change of
 * one is an event), then ready ones up to the most kept. The rest are counted, not kept.
 */
function keptChecks(checks: ReadinessCheck[]): { kept: ReadinessCheck[]; dropped: number; droppedNotReady: number } {
  if (checks.length <= READINESS_CAPS.checks) return { kept: checks, dropped: 0, droppedNotReady: 0 };
  const allNotReady = checks.filter((c) => !isReady(c));
  const notReady = new Set(allNotReady.slice(0, READINESS_CAPS.checks));
  let room = READINESS_CAPS.checks - notReady.size;
  const kept = checks.filter((c) => notReady.has(c) || (isReady(c) && room-- > 0));
  return { kept, dropped: checks.length - kept.length, droppedNotReady: allNotReady.length - notReady.size };
}

function cleanCheck(check: ReadinessCheck): ReadinessCheck {
  const { checkNameBytes, checkStatusBytes, checkDetailBytes } = READINESS_CAPS;
  return { name: cap(check.name, checkNameBytes), status: cap(check.status, checkStatusBytes), ...(typeof check.detail === "string" ? { detail: cap(check.detail, checkDetailBytes) } : {}) };
}

const READY_STATUSES = new Set(["ok", "ready", "pass", "passed", "healthy", "up"]);

const isReady = (check: ReadinessCheck) => READY_STATUSES.has(check.status.toLowerCase());

export function notReadyChecks(observation: Observation | undefined): ReadinessCheck[] {
  return (observation?.checks ?? []).filter((c) => !isReady(c));
}

function describe(observation: Observation): string {
  const pending = notReadyChecks(observation).map((c) => `${c.name}: ${c.status}${c.detail ? ` (${c.detail})` : ""}`);
  return [observation.state, observation.detail, pending.length ? `not ready: ${pending.join(", ")}` : undefined].filter(Boolean).join(" — ");
}

/**
 * Polls until the cloud says READY; each change of state, detail or a check is an event and joins the history.
 * No poll runs past the wait's end (by the step's clock), so the step ends on time whatever the cloud does; but one
 * poll always runs, given FIRST_POLL_MS when the end came before it.
 */
export async function waitForReadiness(
  ctx: StepContext,
  options: ReadinessOptions,
  history: ReadinessObservation[],
  /** The cloud API's certificate as the READY poll met it: the ha-init node's join token pins it. */
  onReadyCertificate?: (sha256: string) => void,
): Promise<void> {
  // The wait is measured by the monotonic clock, its end too (the step announced it by the wall clock, and took it by this
  // one at the same moment): a time sync that steps the wall clock (firstboot starts one) neither ends it early nor stretches it.
  const clock = monotonicOf(ctx);
  const deadline = options.deadline ?? clock() + options.timeoutSeconds * 1000;
  const started = deadline - options.timeoutSeconds * 1000;
  const halfway = started + (options.timeoutSeconds * 1000) / 2;
  let warned = false;
  let last: Observation | undefined;
  let lastKey = "";
  for (;;) {
    // The first poll runs even when the wait's end passed before it (the step's own writes took that long on a slow
    // disk): a verdict names what the cloud said, never "unknown" for want of a single look.
    const left = deadline - clock();
    const budget = Math.min(POLL_TIMEOUT_MS, !last && left <= 0 ? FIRST_POLL_MS : left);
    if (budget <= 0) throw timedOut(options, last);
    let certificate: string | undefined;
    const observation = await pollReadiness(options.url, ctx.signal, budget, (sha256) => (certificate = sha256));
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const now = clock();
    // A poll the wait's end cut short tells nothing new: the verdict names what the cloud said before.
    if (now >= deadline && last && observation.state === "UNREACHABLE") throw timedOut(options, last);
    const key = JSON.stringify(observation);
    if (key !== lastKey) {
      lastKey = key;
      last = observation;
      history.push({ time: ctx.now().toISOString(), ...observation });
      if (history.length > 200) history.shift();
      ctx.emit({ type: "readiness.poll", level: observation.state === "UNREACHABLE" ? "warn" : "info", message: describe(observation), data: { ...observation } });
    }
    if (observation.state === "READY") {
      if (certificate) onReadyCertificate?.(certificate);
      return;
    }
    if (!warned && now >= halfway) {
      warned = true;
      ctx.emit({
        type: "step.progress",
        level: "warn",
        message: `The cloud is taking longer than expected to become READY (${Math.round((now - started) / 1000)} s of ${options.timeoutSeconds} s); last: ${describe(observation)}`,
      });
    }
    await sleep(Math.min(options.intervalSeconds * 1000, Math.max(0, deadline - now)), undefined, { signal: ctx.signal }).catch(() => undefined);
  }
}

function timedOut(options: ReadinessOptions, last: Observation | undefined): StepFailure {
  const pending = notReadyChecks(last);
  const names = pending.map((c) => `${c.name} (${c.status}${c.detail ? `: ${c.detail}` : ""})`);
  return new StepFailure(
    "READINESS_TIMEOUT",
    `The cloud was not READY within ${options.timeoutSeconds} s; last state ${last?.state ?? "unknown"}${last?.detail ? ` (${last.detail})` : ""}` +
      (names.length ? `; not ready: ${names.join(", ")}` : "") +
      ". Fix what is not ready, then recheck readiness.",
  );
}
