import { z } from "zod";
import { nearest, quoted, shown } from "../../core/config/messages.ts";
import { formatPath, objectSchemaOf, valueAt } from "../../core/config/paths.ts";
import type { Path } from "../../core/config/schema.ts";
import { FLEET_OWNED, PlanSchema, REQUIRED } from "./plan-schema.ts";
import type { PlanRule } from "./plan-rules.ts";
import type { PlanProblem } from "./plan-yaml.ts";

/** The object schema at a path of the plan (list items by their element schema), for the keys it knows. */
function schemaAt(path: Path): z.ZodObject | undefined {
  let schema: z.ZodType | undefined = PlanSchema;
  for (const segment of path) {
    if (typeof segment === "number") {
      schema = schema instanceof z.ZodArray ? (schema.element as z.ZodType) : undefined;
    } else {
      schema = objectSchemaOf(schema as z.ZodType)?.shape[segment] as z.ZodType | undefined;
      if (schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
    }
    if (!schema) return undefined;
  }
  return objectSchemaOf(schema);
}

/** The key a message names, with the indexes after it: ["nodes", 2, "role"] → "role", ["nodes", 2] → "nodes[2]". */
function keyName(path: Path): string {
  let last = path.length - 1;
  while (last >= 0 && typeof path[last] !== "string") last -= 1;
  return last < 0 ? "the plan" : formatPath(path.slice(last));
}

function unknownKey(parent: Path, key: string): PlanProblem {
  const path = [...parent, key];
  // Its own keys only: a key named __proto__ or constructor found Object's, said to be the fleet's with that as its hint.
  const owned = Object.hasOwn(FLEET_OWNED, key) ? FLEET_OWNED[key] : undefined;
  const inConfig = parent.includes("config") || parent.includes("common");
  if (owned && inConfig && (key !== "vip" || parent.at(-1) === "network")) {
    return { rule: "fleet-owned", path, message: `${key} is set by the fleet, not in a node's config`, hint: owned, atKey: true };
  }
  const known = Object.keys(schemaAt(parent)?.shape ?? {});
  const match = nearest(key, known, (k) => k);
  const hint = match ? `did you mean ${match}?` : `known keys${parent.length > 0 ? ` in ${formatPath(parent)}` : ""}: ${known.join(", ")}`;
  return { rule: "unknown-key", path, message: `${shown(key)} is not a known key`, hint, atKey: true };
}

/** Keys whose value is never shown in a problem, whatever it holds: a node's install code. */
const SECRET_KEYS: ReadonlySet<string> = new Set(["code"]);

/** The value's kind, and the value too unless it may be a secret. */
function describe(value: unknown, secret = false): string {
  if (value === null) return "empty";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "a string";
  return secret ? `a ${typeof value}` : `${String(value)} (a ${typeof value})`;
}

const EXPECTED: Record<string, string> = { array: "a list", object: "a mapping of keys" };

function issueProblems(issue: z.core.$ZodIssue, input: unknown): PlanProblem[] {
  const path = issue.path.filter((s): s is string | number => typeof s !== "symbol");
  const where = keyName(path);
  const value = valueAt(input, path);
  // A missing key is reported as missing, whatever kind of value it takes (zod calls a missing role an invalid value).
  if (value === undefined && path.length > 0 && (issue.code === "invalid_type" || issue.code === "invalid_value")) {
    return [{ rule: "required", path, message: `${where} is required: ${REQUIRED[String(path.at(-1))] ?? "give it a value"}` }];
  }
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => unknownKey(path, key));
    case "invalid_type": {
      const hint = issue.expected === "string" && (typeof value === "number" || typeof value === "boolean") ? "put it in quotes" : undefined;
      return [{ rule: "type", path, message: `${where} must be ${EXPECTED[issue.expected] ?? `a ${issue.expected}`}, not ${describe(value, SECRET_KEYS.has(String(path.at(-1))))}`, hint }];
    }
    case "invalid_value":
      return [{ rule: "one-of", path, message: `${where} ${typeof value === "string" ? quoted(value) : JSON.stringify(value)} is not one of ${issue.values.map(String).join(", ")}` }];
    case "too_small":
      return [{ rule: "required", path, message: Array.isArray(value) ? `${where} is empty: list at least one` : `${where} is empty: give it a value` }];
    case "too_big":
      return [{ rule: "type", path, message: `${where} is too long (at most ${String(issue.maximum)})` }];
    default:
      return [{ rule: "type", path, message: `${where}: ${issue.message}` }];
  }
}

/** Inside a node's config or the common part the draft's own shape is checked, as the service's validator checks it. */
const inDraft = (path: Path) => (path[0] === "nodes" && path[2] === "config" && path.length > 3) || (path[0] === "cluster" && path[1] === "common" && path.length > 2);
const ruleAt = (problem: PlanProblem): PlanProblem => (problem.rule !== "fleet-owned" && inDraft(problem.path) ? { ...problem, rule: "draft" satisfies PlanRule } : problem);

/** Every key and type problem of the plan at once; [] when it has the plan's shape. */
export function planShapeProblems(input: unknown): PlanProblem[] {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return [{ rule: "type", path: [], message: `the plan must be a mapping with cluster: and nodes:, not ${describe(input)}` }];
  }
  const result = PlanSchema.safeParse(input);
  return result.success ? [] : result.error.issues.flatMap((issue) => issueProblems(issue, input)).map(ruleAt);
}
