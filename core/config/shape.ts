import { z } from "zod";
import { MODES, modeFromNodeYaml } from "../common/model.ts";
import { MAX_SAME_ERRORS_SHOWN, nearest, quoted, shown } from "./messages.ts";
import { formatPath, isPlainObject, isPrefixOf, keyPaths, objectSchemaOf, toSnake, valueAt } from "./paths.ts";
import { SECRET_FIELDS } from "../secrets/redact.ts";
import type { Names, Path, PathError } from "./schema.ts";

/** What a value is, in words: "a list", "the number 1234", "null". */
function describeValue(value: unknown, objectWord: string): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data";
  if (typeof value === "object") return objectWord;
  if (typeof value === "number" || typeof value === "bigint") return `the number ${String(value)}`;
  if (typeof value === "boolean") return `${value} (a yes/no value)`;
  return `a ${typeof value}`;
}

/** The same, without the value itself: for secrets, which never appear in a message. */
function describeKind(value: unknown, objectWord: string): string {
  if (typeof value === "number" || typeof value === "bigint") return "a number";
  if (typeof value === "boolean") return "a yes/no value";
  return describeValue(value, objectWord);
}


function unknownKeyError(known: string[][], parent: Path, key: string): PathError {
  const path = [...parent, key];
  const siblings = known.filter((p) => p.length === parent.length + 1 && isPrefixOf(parent, p));
  const others = known.filter((p) => !siblings.includes(p));
  const match = nearest(key, [...siblings, ...others], (p) => p.at(-1) ?? "");
  const hint = match
    ? `did you mean ${formatPath(match)}?`
    : `${parent.length === 0 ? "known top-level keys" : `known keys in ${formatPath(parent)}`}: ${siblings.map((p) => p.at(-1)).join(", ")}`;
  return { path, message: `${shown(formatPath(path))} is not a known key`, hint, atKey: true };
}

/** One error per unknown key, hinting at the nearest known key, e.g. "did you mean network.gateway?". */
function unknownKeyErrors(known: string[][], parent: Path, keys: string[]): PathError[] {
  const errors = keys.slice(0, MAX_SAME_ERRORS_SHOWN).map((key) => unknownKeyError(known, parent, key));
  const more = keys.length - MAX_SAME_ERRORS_SHOWN;
  if (more > 0) {
    errors.push({ path: parent, message: `${formatPath(parent) || "the config"} has ${more} more unknown keys`, atKey: true });
  }
  return errors;
}

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
  if (expected === "array" && typeof value === "string") return `make it a list: [${quoted(value)}]`;
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

function keep(schema: z.ZodType, value: unknown, path: Path, bad: Set<string>): unknown {
  if (value === undefined || bad.has(JSON.stringify(path))) return undefined;
  const object = objectSchemaOf(schema);
  if (object) {
    if (!isPlainObject(value)) return undefined;
    const entries = Object.entries(object.shape)
      .map(([key, child]) => [key, keep(child as z.ZodType, value[key], [...path, key], bad)] as const)
      .filter(([, kept]) => kept !== undefined);
    return Object.fromEntries(entries);
  }
  if (!Array.isArray(value)) return value;
  // Items keep their indexes, so later rules name the right one; a bad item leaves a hole.
  const items: unknown[] = new Array(value.length);
  value.forEach((item, i) => {
    if (!bad.has(JSON.stringify([...path, i]))) items[i] = item;
  });
  return items;
}

/** The part of `input` that `schema` accepts: values at the bad paths and unknown keys left out. */
export function wellShapedPart(schema: z.ZodObject, input: unknown, badPaths: readonly Path[]): Record<string, unknown> | undefined {
  const kept = keep(schema, input, [], new Set(badPaths.map((path) => JSON.stringify(path))));
  return isPlainObject(kept) ? kept : undefined;
}
