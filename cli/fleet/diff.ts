import { formatPath, isPlainObject } from "../../core/config/paths.ts";
import type { Path } from "../../core/config/schema.ts";

/** The fields where two drafts differ, e.g. ["network.dns", "timezone"]; a list that differs is one field. */
export function changedFields(a: unknown, b: unknown, path: Path = []): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => changedFields(a[key], b[key], [...path, key]));
  }
  return sameJson(a, b) ? [] : [formatPath(path)];
}

/** Whether two values write the same JSON; a value nested past the stack (a node's draft may be) is written by neither side, and equals nothing. */
function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
