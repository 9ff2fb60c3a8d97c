import { z } from "zod";
import type { Path } from "./schema.ts";

/** ["network", "floatingIpCidrs", 1] → "network.floatingIpCidrs[1]"; [] → "". */
export function formatPath(path: Path): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === "number" ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment),
    "",
  );
}

export function isPrefixOf(prefix: Path, path: Path): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => segment === path[i]);
}

/** The value at `path` inside `root`, or undefined when any step is missing. */
export function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const segment of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function toSnake(key: string): string {
  return key.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
}

/** The object schema a field holds, looking through `.optional()`; undefined for leaves and lists. */
export function objectSchemaOf(schema: z.ZodType): z.ZodObject | undefined {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  return inner instanceof z.ZodObject ? inner : undefined;
}

/** Every key path of an object schema, parents before children: [["mode"], …, ["network"], ["network", "interface"], …]. */
export function keyPaths(schema: z.ZodObject, parent: readonly string[] = []): string[][] {
  return Object.entries(schema.shape).flatMap(([key, child]) => {
    const path = [...parent, key];
    const object = objectSchemaOf(child as z.ZodType);
    return [path, ...(object ? keyPaths(object, path) : [])];
  });
}

/** Compares paths in the schema's field order (list items by index, unknown keys after known ones). */
export function schemaOrder(schema: z.ZodObject): (a: Path, b: Path) => number {
  const rank = new Map(keyPaths(schema).map((path, i) => [JSON.stringify(path), i]));
  const ranks = (path: Path) =>
    path.map((segment, i) =>
      typeof segment === "number" ? segment : (rank.get(JSON.stringify(path.slice(0, i + 1))) ?? Number.MAX_SAFE_INTEGER),
    );
  return (a, b) => {
    const [ra, rb] = [ranks(a), ranks(b)];
    for (let i = 0; i < Math.min(ra.length, rb.length); i += 1) {
      if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    }
    return ra.length - rb.length;
  };
}

/** A list's items with their indexes; items the shape check refused are holes and are skipped. */
export function itemsOf<T>(list: readonly T[] | undefined): Array<[number, T]> {
  const items: Array<[number, T]> = [];
  list?.forEach((item, i) => items.push([i, item]));
  return items;
}
