import { isAlias, isScalar, type Document } from "yaml";
import { isPlainObject, toSnake } from "./paths.ts";

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

const NODE_YAML_PATHS = SECRET_FIELDS.map((field) => field.split(".").map(toSnake));

/** The source text of each secret scalar in a node.yaml (quotes, escapes, block lines as written): what firstboot prints back. */
export function secretScalarTexts(doc: Document.Parsed, text: string): string[] {
  return NODE_YAML_PATHS.flatMap((path) => {
    let node = doc.getIn(path, true);
    if (isAlias(node)) node = node.resolve(doc);
    return isScalar(node) && node.range ? [text.slice(node.range[0], node.range[1])] : [];
  });
}
