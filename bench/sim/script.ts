/**
 * What a simulated attempt says, in the order a real one does: attempt.started, each step started, its
 * progress lines (a join's seven join checks, firstboot's output, the cloud's readiness polls) and finished,
 * then attempt.finished with the verdict. The events carry no seq, attempt or time: the node stamps them.
 */
import type { JOIN_CHECK_NAMES } from "../../core/state/records.ts";

type Step = "preflight" | "write-config" | "firstboot" | "readiness";

export interface ScriptEvent {
  type: "attempt.started" | "step.started" | "step.log" | "step.progress" | "step.finished" | "readiness.poll" | "attempt.finished";
  step?: Step;
  level: "info";
  message: string;
  data?: Record<string, unknown>;
}

const CHECKS: ReadonlyArray<(typeof JOIN_CHECK_NAMES)[number]> = ["reachable", "fingerprint", "join-info", "cluster", "release", "clock", "token"];
const FIRSTBOOT_LINES = 12;
const READINESS = ["PROGRESSING", "PROGRESSING", "PROGRESSING", "PROGRESSING", "PROGRESSING", "READY"];

const progress = (step: Step, message: string, data?: Record<string, unknown>): ScriptEvent => ({ type: "step.progress", step, level: "info", message, ...(data ? { data } : {}) });

function step(name: Step, body: ScriptEvent[], durationMs: number): ScriptEvent[] {
  return [
    { type: "step.started", step: name, level: "info", message: `${name} started`, ...(name === "readiness" ? { data: { deadline: new Date(Date.now() + 1_800_000).toISOString() } } : {}) },
    ...body,
    { type: "step.finished", step: name, level: "info", message: `${name} succeeded`, data: { outcome: "succeeded", durationMs } },
  ];
}

/** A successful install attempt of a node of this role: some 35 events. */
export function attemptScript(role: "init" | "join", attempt: number, attemptMs: number): ScriptEvent[] {
  const stepMs = Math.round(attemptMs / 4);
  const preflight = [
    progress("preflight", "config validates"),
    progress("preflight", "no blockers"),
    progress("preflight", "firstboot program /usr/lib/stratum/firstboot is executable"),
    ...(role === "join" ? CHECKS.map((name) => progress("preflight", `join check ${name}: ok — simulated`, { check: { name, ok: true, detail: "simulated" } })) : []),
  ];
  const writeConfig = [
    ...(role === "init" ? [progress("write-config", "generated the cluster's join secret (cluster.join_token)")] : []),
    progress("write-config", "wrote /etc/stratum/node.yaml (1187 bytes, mode 0600)"),
  ];
  const firstboot = Array.from({ length: FIRSTBOOT_LINES }, (_, i): ScriptEvent => ({ type: "step.log", step: "firstboot", level: "info", message: `firstboot: stage ${i + 1} of ${FIRSTBOOT_LINES}`, data: { stream: "stdout" } }));
  const readiness = READINESS.map((state): ScriptEvent => ({ type: "readiness.poll", step: "readiness", level: "info", message: `the cloud is ${state}`, data: { state } }));
  const verdict = { attempt, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "The node is installed and the cloud reports READY.", next: "none" };
  return [
    { type: "attempt.started", level: "info", message: `install attempt ${attempt} started by a person`, data: { kind: "install", startedBy: "person" } },
    ...step("preflight", preflight, stepMs),
    ...step("write-config", writeConfig, stepMs),
    ...step("firstboot", firstboot, stepMs),
    ...step("readiness", readiness, stepMs),
    { type: "attempt.finished", level: "info", message: verdict.message, data: { verdict } },
  ];
}
