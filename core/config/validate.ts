import { toFieldError } from "./field-error.ts";
import { draftNames } from "./messages.ts";
import { schemaOrder } from "./paths.ts";
import { findProblems } from "./problems.ts";
import { type Draft, DraftSchema, type FieldError, type ValidationContext } from "./schema.ts";

const inFieldOrder = schemaOrder(DraftSchema);

/** Every problem of a structured draft (any JSON value) at once, in field order; [] when it is valid. */
export function validateDraft(input: unknown, ctx: ValidationContext): FieldError[] {
  const { problems } = findProblems(input, ctx, {
    schema: DraftSchema,
    names: draftNames,
    toDraft: (wellShaped) => wellShaped as Draft,
    toOwnPath: (path) => path,
  });
  return problems.sort((a, b) => inFieldOrder(a.path, b.path)).map((problem) => toFieldError(problem));
}
