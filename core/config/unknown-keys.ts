import { nearest, shown } from "./messages.ts";
import { formatPath, isPrefixOf } from "./paths.ts";
import type { Path, PathError } from "./schema.ts";

// Past this many, one error sums up the rest: a flood of keys is one mistake, and hints cost time.
const MAX_UNKNOWN_KEYS_SHOWN = 50;

function unknownKeyError(known: string[][], parent: Path, key: string): PathError {
  const path = [...parent, key];
  const siblings = known.filter((p) => p.length === parent.length + 1 && isPrefixOf(parent, p));
  const others = known.filter((p) => !siblings.includes(p));
  const match = nearest(key, [...siblings, ...others], (p) => p.at(-1) ?? "");
  const hint = match
    ? `did you mean ${formatPath(match)}?`
    : `${parent.length === 0 ? "known top-level keys" : `known keys in ${formatPath(parent)}`}: ${siblings.map((p) => p.at(-1)).join(", ")}`;
  return { path, message: `${shown(formatPath(path))} is not a known key`, hint, atKey: true };
}

/** One error per unknown key, hinting at the nearest known key, e.g. "did you mean network.gateway?". */
export function unknownKeyErrors(known: string[][], parent: Path, keys: string[]): PathError[] {
  const errors = keys.slice(0, MAX_UNKNOWN_KEYS_SHOWN).map((key) => unknownKeyError(known, parent, key));
  const more = keys.length - MAX_UNKNOWN_KEYS_SHOWN;
  if (more > 0) {
    errors.push({ path: parent, message: `${formatPath(parent) || "the config"} has ${more} more unknown keys`, atKey: true });
  }
  return errors;
}
