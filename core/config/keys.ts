import { z } from "zod";

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
