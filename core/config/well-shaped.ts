import { z } from "zod";
import { isPlainObject, objectSchemaOf } from "./paths.ts";
import type { Path } from "./schema.ts";

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
