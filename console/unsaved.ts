/** Edits on screen that are not in the draft yet: Install installs the draft as saved, so it waits for them. */
import { formEdited } from "./form-fields.ts";
import { state } from "./store.ts";

/** The line that says where edits wait to be saved, "" when none do. */
export function unsavedEdits(): string {
  const where = [formEdited() ? "the guided form" : "", state.yamlDirty ? "the node.yaml tab" : ""].filter(Boolean);
  return where.length ? "Unsaved changes in " + where.join(" and ") + ": save them first." : "";
}
