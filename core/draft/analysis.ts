import { analyzeYamlDraft, draftMode, validateDraft, type Draft, type ValidationContext } from "../config/index.ts";
import { shownField } from "../config/messages.ts";
import { DEFAULT_MODE, MODE_TABLE, type Mode, type Profile } from "../common/model.ts";
import type { DraftRecord, FieldError } from "../state/records.ts";

/** A draft as a person sends it: a structured (JSON) draft, or node.yaml text kept as written. */
export type DraftBody = { source: "structured"; config: Record<string, unknown> } | { source: "yaml"; yaml: string };

export interface DraftAnalysis {
  valid: boolean;
  errors: FieldError[];
  /** Seed 000: the draft's install mode; absent for raw YAML that does not parse or names no known mode. */
  mode?: Mode;
  profile: Profile;
  hostname?: string;
  /** The structured form, when there is one (a raw YAML draft that parses). */
  draft?: Draft;
}

/**
 * What the service says of a draft (its view, a validation, an INVALID_CONFIG, the unattended record): each error's
 * field cut short when a key in it is huge (the key stays in the draft; `validate --format json` cuts it the same).
 */
export function analyzeBody(body: DraftBody, ctx: ValidationContext): DraftAnalysis {
  const analysis = analyzed(body, ctx);
  return { ...analysis, errors: analysis.errors.map((e) => ({ ...e, field: shownField(e.field) })) };
}

function analyzed(body: DraftBody, ctx: ValidationContext): DraftAnalysis {
  if (body.source === "yaml") {
    const result = analyzeYamlDraft(body.yaml, ctx);
    return {
      valid: result.errors.length === 0,
      errors: result.errors,
      mode: result.mode,
      profile: MODE_TABLE[result.mode ?? DEFAULT_MODE].profile,
      hostname: result.hostname,
      draft: result.draft,
    };
  }
  const errors = validateDraft(body.config, ctx);
  const mode = draftMode(body.config);
  const hostname = (body.config as { hostname?: unknown } | null)?.hostname;
  return {
    valid: errors.length === 0,
    errors,
    mode,
    profile: MODE_TABLE[mode ?? DEFAULT_MODE].profile,
    hostname: typeof hostname === "string" ? hostname : undefined,
    draft: errors.length === 0 ? (body.config as Draft) : undefined,
  };
}

export function toBody(record: DraftRecord): DraftBody {
  return record.source === "yaml" ? { source: "yaml", yaml: record.yaml } : { source: "structured", config: record.config };
}
