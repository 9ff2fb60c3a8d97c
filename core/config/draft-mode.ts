import { DEFAULT_MODE, type Mode, MODES } from "../model.ts";
import { isPlainObject } from "./paths.ts";

/** A structured draft's install mode: its mode when a known one, the default when it has none, undefined when unknown. */
export function draftMode(draft: unknown): Mode | undefined {
  const mode = isPlainObject(draft) ? draft.mode : undefined;
  if (mode === undefined) return DEFAULT_MODE;
  return MODES.find((m) => m === mode);
}
