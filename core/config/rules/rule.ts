import type { Draft, PathError, RuleContext } from "../schema.ts";

export type Rule = (draft: Draft, ctx: RuleContext) => PathError[];

/** A list's items with their indexes; items the shape check refused are holes and are skipped. */
export function itemsOf<T>(list: readonly T[] | undefined): Array<[number, T]> {
  const items: Array<[number, T]> = [];
  list?.forEach((item, i) => items.push([i, item]));
  return items;
}
