import { printableJson } from "../core/common/printable.ts";

/** Whether two JSON values are the same: the same keys, the same primitives (`===`), arrays of the same length and items. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    keys++;
    if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
  }
  for (const _ in y) keys--;
  return keys === 0;
}

/**
 * Printable JSON (core/common/printable.ts: a draft's hostname with a bidi override is written out, \u202e) for a
 * value asked for again and again that seldom changes (GET /status at a fleet's or a console's pace): the last text
 * is given again while the value is the same as the one it was made from, compared against a parsed copy of that
 * text, so a record changed in place is seen too. Anything else (another key, another value, a `toJSON`) makes the
 * text anew.
 */
export function jsonText(): (value: unknown) => string {
  let text: string | undefined;
  let made: unknown;
  return (value) => {
    if (text !== undefined && sameJson(value, made)) return text;
    text = printableJson(value);
    made = JSON.parse(text);
    return text;
  };
}
