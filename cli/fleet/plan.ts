import { createHash } from "node:crypto";
import { readTextFile, whyUnreadable } from "../../core/fs/read-text-file.ts";
import { dirname } from "node:path";
import type { Draft } from "../../core/config/index.ts";
import { composeDraft } from "./compose.ts";
import { type NodeAccess, installerUrlProblem, parseFingerprint, resolveCode } from "./node-access.ts";
import { crossNodeProblems, fieldProblems, offlineFieldErrors, sameInstallerProblems } from "./plan-checks.ts";
import type { Plan, Role } from "./plan-schema.ts";
import type { PlanRule } from "./plan-rules.ts";
import { planShapeProblems } from "./plan-shape.ts";
import { type LocatedProblem, MAX_PLAN_BYTES, type PlanProblem, parsePlanYaml } from "./plan-yaml.ts";
import type { FieldError } from "../../core/state/records.ts";

export interface FleetNode {
  index: number;
  name: string;
  role: Role;
  access: NodeAccess;
  /** The node's draft; a join's with the token once the init node issued it. */
  draft(joinToken?: string): Draft;
}

export interface LoadedPlan {
  file: string;
  /** sha256 of the plan's text: a state file written for another plan says so. */
  hash: string;
  plan: Plan;
  nodes: FleetNode[];
  /** Where a plan path is in the file. */
  locate(problem: PlanProblem): LocatedProblem;
}

type PlanResult = { ok: true; loaded: LoadedPlan } | { ok: false; problems: LocatedProblem[] };

async function accessOf(plan: Plan, index: number, folder: string, env: NodeJS.ProcessEnv): Promise<{ access?: NodeAccess; problems: PlanProblem[] }> {
  const node = plan.nodes[index]!;
  const at = (rule: PlanRule, key: string, message: string, hint?: string): PlanProblem => ({ rule, path: ["nodes", index, key], message, ...(hint ? { hint } : {}) });
  const problems: PlanProblem[] = [];
  const urlProblem = installerUrlProblem(node.installer);
  if (urlProblem) problems.push(at("installer-url", "installer", urlProblem));
  const pin = parseFingerprint(node.fingerprint);
  if (!pin) problems.push(at("fingerprint", "fingerprint", "the fingerprint is not a SHA-256: 64 hex digits, plain or in colon-separated pairs", "copy the TLS SHA-256 line of the installer's banner"));
  const code = await resolveCode(node.code, folder, env);
  if (!code.ok) problems.push(at("code", "code", code.problem, "`node installer.js code` on the node prints its install code"));
  return problems.length > 0 || !pin || !code.ok ? { problems } : { access: { url: new URL(node.installer), pin, code: code.code }, problems };
}

const byPosition = (a: LocatedProblem, b: LocatedProblem) => a.line - b.line || a.column - b.column;

/**
 * For each node whose part of the plan has a shape problem, its keys the problems are about ("*": the node is no
 * mapping). A key unknown at the node's own level (a typo, a key of the fleet's) damages none of its other keys: every
 * other check still runs on them, so that the plan's problems come at once (SPEC §10.1).
 */
function damagedKeys(problems: PlanProblem[]): Map<number, Set<string>> {
  const damaged = new Map<number, Set<string>>();
  for (const { path, rule, hint } of problems) {
    const [section, index, key] = path;
    if (section !== "nodes" || typeof index !== "number") continue;
    if (path.length === 3 && (rule === "unknown-key" || rule === "fleet-owned")) {
      // A misspelt key (confg:) is the key it was meant to be, missing: what needs that key is not checked.
      const meant = /^did you mean (\w+)\?$/.exec(hint ?? "")?.[1];
      if (meant) damaged.set(index, new Set([...(damaged.get(index) ?? []), meant]));
      continue;
    }
    const keys = damaged.get(index) ?? new Set<string>();
    keys.add(key === undefined ? "*" : String(key));
    damaged.set(index, keys);
  }
  return damaged;
}

/** SPEC §10.1 offline: shape, install codes and pins, each node's draft by the service's validator, the rules across nodes. Every problem at once. */
export async function loadPlan(file: string, env: NodeJS.ProcessEnv): Promise<PlanResult> {
  const text = await readTextFile(file, MAX_PLAN_BYTES).catch((error: Error) => error);
  if (text instanceof Error) return { ok: false, problems: [{ rule: "plan-file", path: [], message: `cannot read the plan: ${whyUnreadable(text, file)}`, line: 1, column: 1 }] };
  const parsed = parsePlanYaml(text);
  if (!parsed.ok) return { ok: false, problems: [parsed.problem] };
  const { value, locate } = parsed.plan;
  const shape = planShapeProblems(value);
  const unreadable = shape.some((p) => p.path.length === 0 || (p.path.length === 1 && p.path[0] !== "cluster") || (p.path[0] === "cluster" && p.path.length === 1));
  if (unreadable) return { ok: false, problems: shape.map(locate).sort(byPosition) };

  const plan = value as Plan;
  const damaged = damagedKeys(shape);
  const sound = (keys: string[]) => plan.nodes.map((_, i) => i).filter((i) => !["*", ...keys].some((key) => damaged.get(i)?.has(key)));
  // A cluster section with a problem leaves the drafts unknown: only what does not need them is checked.
  const clusterWell = !shape.some((p) => p.path[0] === "cluster");
  const drafts = new Map(clusterWell ? sound(["name", "role", "config"]).map((i) => [i, composeDraft(plan, plan.nodes[i]!)]) : []);
  const reachable = new Set(sound(["installer", "fingerprint", "code"]));
  const accesses = await Promise.all(plan.nodes.map((_, i) => (reachable.has(i) ? accessOf(plan, i, dirname(file), env) : { problems: [] })));
  const good = sound(["name", "installer"]);
  const fieldErrors = new Map<number, FieldError[]>([...drafts].map(([i, draft]) => [i, offlineFieldErrors(draft)]));
  const problems = [...shape, ...accesses.flatMap((a) => a.problems), ...sameInstallerProblems(plan, accesses.map((a) => ("access" in a ? a.access : undefined))), ...fieldProblems(plan, fieldErrors), ...crossNodeProblems(plan, good, drafts)];
  if (problems.length > 0) return { ok: false, problems: problems.map(locate).sort(byPosition) };

  const nodes = plan.nodes.map((node, index) => ({
    index,
    name: node.name,
    role: node.role,
    access: (accesses[index] as { access: NodeAccess }).access,
    draft: (joinToken?: string) => composeDraft(plan, node, joinToken),
  }));
  return { ok: true, loaded: { file, hash: createHash("sha256").update(text).digest("hex"), plan, nodes, locate } };
}
