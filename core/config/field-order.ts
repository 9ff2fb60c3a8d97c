import type { z } from "zod";
import { keyPaths } from "./keys.ts";
import type { Path } from "./types.ts";

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
