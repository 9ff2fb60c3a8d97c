import { type Document, isMap, isScalar, isSeq, type Node } from "yaml";
import type { Path } from "./schema.ts";

/**
 * Where the node at `path` starts in the text: its value, or its key when the error is about the key or the value is
 * empty. A missing key points at its parent's key (offset 0 for a top-level key).
 */
export function offsetOf(doc: Document.Parsed, path: Path, atKey = false): number {
  let node: unknown = doc.contents;
  let anchor = 0;
  for (const [i, segment] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) return anchor;
      const keyOffset = (pair.key as Node).range?.[0] ?? anchor;
      const value = pair.value as Node | null;
      if ((atKey && i === path.length - 1) || value === null || (isScalar(value) && value.value === null)) return keyOffset;
      node = value;
      anchor = keyOffset;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (!item) return anchor;
      node = item;
      anchor = item.range?.[0] ?? anchor;
    } else {
      return anchor;
    }
  }
  return (node as Node | null)?.range?.[0] ?? anchor;
}
