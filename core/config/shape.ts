import { z } from "zod";
import { MODES, modeFromNodeYaml } from "../model.ts";
import { describeKind, describeValue } from "./describe-value.ts";
import { nearest, quoted } from "./messages.ts";
import { formatPath, keyPaths, toSnake, valueAt } from "./paths.ts";
import { SECRET_FIELDS } from "./redact.ts";
import type { Names, PathError } from "./schema.ts";
import { unknownKeyErrors } from "./unknown-keys.ts";

function expectedWord(expected: string, names: Names): string {
  if (expected === "array") return "a list";
  if (expected === "object") return names.objectWord;
  return `a ${expected}`;
}

const SECRET_PATHS = new Set(SECRET_FIELDS.flatMap((field) => [field, field.split(".").map(toSnake).join(".")]));

function isSecret(path: readonly (string | number)[]): boolean {
  return SECRET_PATHS.has(path.join("."));
}

function typeHint(expected: string, value: unknown, secret: boolean): string | undefined {
  if (expected === "string" && (typeof value === "number" || typeof value === "boolean")) return secret ? "put it in quotes" : `put it in quotes: "${String(value)}"`;
  if (expected === "array" && typeof value === "string") return `make it a list: [${JSON.stringify(value)}]`;
  return undefined;
}

function enumHint(value: unknown, values: readonly string[], names: Names): string | undefined {
  if (typeof value !== "string") return undefined;
  const otherSpelling = MODES.find((mode) => mode === value) ?? modeFromNodeYaml(value);
  const suggestion = otherSpelling ? names.mode(otherSpelling) : nearest(value, values, (v) => v);
  return suggestion && suggestion !== value ? `did you mean ${suggestion}?` : undefined;
}

function issueErrors(issue: z.core.$ZodIssue, known: string[][], input: unknown, names: Names): PathError[] {
  const path = issue.path.filter((s): s is string | number => typeof s !== "symbol");
  const what = formatPath(path);
  const value = valueAt(input, path);
  switch (issue.code) {
    case "unrecognized_keys":
      return unknownKeyErrors(known, path, issue.keys);
    case "invalid_type":
      if (path.length === 0) {
        return [{ path, message: `the config must be ${names.objectWord} of keys (mode, hostname, network, …), not ${describeValue(value, names.objectWord)}` }];
      }
      if (value === null || value === undefined) return [{ path, message: `${what} is empty: give it a value or remove it` }];
      if (isSecret(path)) {
        return [{ path, message: `${what} must be ${expectedWord(issue.expected, names)}, not ${describeKind(value, names.objectWord)}`, hint: typeHint(issue.expected, value, true) }];
      }
      return [{ path, message: `${what} must be ${expectedWord(issue.expected, names)}, not ${describeValue(value, names.objectWord)}`, hint: typeHint(issue.expected, value, false) }];
    case "too_big":
      return Array.isArray(value)
        ? [{ path, message: `${what} has ${value.length} entries; at most ${issue.maximum} are allowed` }]
        : [{ path, message: `${what} is too long: ${String(value).length} characters, at most ${issue.maximum}` }];
    case "too_small":
      return [{ path, message: `${what} is empty: give it a value or remove it` }];
    case "invalid_value": {
      const values = issue.values.map(String);
      const shownValue = typeof value === "string" ? quoted(value) : String(value);
      return [{ path, message: `${what} ${shownValue} is not one of ${values.join(", ")}`, hint: enumHint(value, values, names) }];
    }
    default:
      return [{ path, message: `${what || "the config"}: ${issue.message}` }];
  }
}

// zod still runs a list's length check on a value that is not a list; the type error is the one to report.
function withoutFollowUps(issues: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const wrongType = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => JSON.stringify(i.path)));
  return issues.filter((i) => i.code === "invalid_type" || i.code === "unrecognized_keys" || !wrongType.has(JSON.stringify(i.path)));
}

/** Type and key errors of `input` against a strict schema, each at its own path. */
export function shapeErrors(schema: z.ZodObject, input: unknown, names: Names): PathError[] {
  const result = schema.safeParse(input);
  if (result.success) return [];
  const known = keyPaths(schema);
  return withoutFollowUps(result.error.issues).flatMap((issue) => issueErrors(issue, known, input, names));
}
