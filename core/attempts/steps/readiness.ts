import { request } from "node:https";
import { request as httpRequest } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { ReadinessCheck, ReadinessObservation } from "../types.ts";
import { StepFailure } from "../verdict.ts";
import type { StepContext } from "./context.ts";

export interface ReadinessOptions {
  url: string;
  timeoutSeconds: number;
  intervalSeconds: number;
}

const REQUEST_TIMEOUT_MS = 5_000;
const MAX_BODY = 256 * 1024;

/** One poll. Anything but a JSON answer with a `state` is reported as UNREACHABLE with the reason, never thrown. */
export function pollReadiness(url: string, signal: AbortSignal): Promise<Omit<ReadinessObservation, "time">> {
  return new Promise((resolve) => {
    const unreachable = (detail: string) => resolve({ state: "UNREACHABLE", detail });
    const send = url.startsWith("https:") ? request : httpRequest;
    // The cloud's endpoint on a fresh node has a self-signed certificate.
    const req = send(url, { method: "GET", rejectUnauthorized: false, timeout: REQUEST_TIMEOUT_MS, signal, headers: { accept: "application/json" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        if (body.length > MAX_BODY) req.destroy(new Error("answer over 256 KiB"));
      });
      res.on("end", () => {
        try {
          const parsed = JSON.parse(body) as { state?: unknown; detail?: unknown; checks?: unknown };
          if (typeof parsed.state !== "string") return unreachable(`HTTP ${res.statusCode}: the answer has no "state"`);
          resolve({
            state: parsed.state,
            ...(typeof parsed.detail === "string" ? { detail: parsed.detail } : {}),
            ...(Array.isArray(parsed.checks) ? { checks: parsed.checks.filter(isCheck).map(cleanCheck) } : {}),
          });
        } catch {
          unreachable(`HTTP ${res.statusCode}: the answer is not JSON`);
        }
      });
      res.on("error", (err) => unreachable(err.message));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on("error", (err) => unreachable(err.message));
    req.end();
  });
}

function isCheck(value: unknown): value is ReadinessCheck {
  const check = value as ReadinessCheck;
  return typeof check === "object" && check !== null && typeof check.name === "string" && typeof check.status === "string";
}

function cleanCheck(check: ReadinessCheck): ReadinessCheck {
  return { name: check.name, status: check.status, ...(typeof check.detail === "string" ? { detail: check.detail } : {}) };
}

const READY_STATUSES = new Set(["ok", "ready", "pass", "passed", "healthy", "up"]);

export function notReadyChecks(observation: Omit<ReadinessObservation, "time"> | undefined): ReadinessCheck[] {
  return (observation?.checks ?? []).filter((c) => !READY_STATUSES.has(c.status.toLowerCase()));
}

function describe(observation: Omit<ReadinessObservation, "time">): string {
  const pending = notReadyChecks(observation).map((c) => `${c.name}: ${c.status}${c.detail ? ` (${c.detail})` : ""}`);
  return [observation.state, observation.detail, pending.length ? `not ready: ${pending.join(", ")}` : undefined].filter(Boolean).join(" — ");
}

/** Polls until the cloud says READY; each change of state, detail or a check is an event and joins the history. */
export async function waitForReadiness(ctx: StepContext, options: ReadinessOptions, history: ReadinessObservation[]): Promise<void> {
  const started = Date.now();
  const deadline = started + options.timeoutSeconds * 1000;
  const halfway = started + (options.timeoutSeconds * 1000) / 2;
  let warned = false;
  let last: Omit<ReadinessObservation, "time"> | undefined;
  let lastKey = "";
  for (;;) {
    const observation = await pollReadiness(options.url, ctx.signal);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const key = JSON.stringify(observation);
    if (key !== lastKey) {
      lastKey = key;
      last = observation;
      history.push({ time: ctx.now().toISOString(), ...observation });
      if (history.length > 200) history.shift();
      ctx.emit({ type: "readiness.poll", level: observation.state === "UNREACHABLE" ? "warn" : "info", message: describe(observation), data: { ...observation } });
    }
    if (observation.state === "READY") return;
    const now = Date.now();
    if (!warned && now >= halfway) {
      warned = true;
      ctx.emit({
        type: "step.progress",
        level: "warn",
        message: `The cloud is taking longer than expected to become READY (${Math.round((now - started) / 1000)} s of ${options.timeoutSeconds} s); last: ${describe(observation)}`,
      });
    }
    if (now >= deadline) {
      const pending = notReadyChecks(last);
      const names = pending.map((c) => `${c.name} (${c.status}${c.detail ? `: ${c.detail}` : ""})`);
      throw new StepFailure(
        "READINESS_TIMEOUT",
        `The cloud was not READY within ${options.timeoutSeconds} s; last state ${last?.state ?? "unknown"}${last?.detail ? ` (${last.detail})` : ""}` +
          (names.length ? `; not ready: ${names.join(", ")}` : "") +
          ". Fix what is not ready, then recheck readiness.",
        { lastState: last?.state, notReady: pending },
      );
    }
    await sleep(Math.min(options.intervalSeconds * 1000, Math.max(0, deadline - now)), undefined, { signal: ctx.signal }).catch(() => undefined);
  }
}
