import { toSnake } from "./keys.ts";
import { isPlainObject } from "./plain-object.ts";

/** Paths of the draft's secret fields: never in events, reports, logs or error messages (SPEC §3). */
export const SECRET_FIELDS = ["cluster.joinToken", "admin.passwordHash"] as const;

export const REDACTED = "[redacted]";

function redactPath(value: unknown, keys: readonly string[]): unknown {
  const [key, ...rest] = keys;
  if (key === undefined || !isPlainObject(value) || !Object.hasOwn(value, key)) return value;
  return { ...value, [key]: rest.length === 0 ? REDACTED : redactPath(value[key], rest) };
}

/** A copy of a draft with its secrets replaced by "[redacted]" where present; node.yaml's snake_case spelling too. */
export function redactDraft(draft: unknown): unknown {
  const paths = SECRET_FIELDS.flatMap((field) => {
    const keys = field.split(".");
    return [keys, keys.map(toSnake)];
  });
  return paths.reduce(redactPath, draft);
}
