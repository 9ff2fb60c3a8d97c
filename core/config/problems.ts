import type { z } from "zod";
import { isPrefixOf } from "./paths.ts";
import { RULES } from "./rules/index.ts";
import type { Draft, Names, Path, PathError, ValidationContext } from "./schema.ts";
import { shapeErrors, wellShapedPart } from "./shape.ts";

/** How a draft is written: the structured API draft, or node.yaml. */
export interface Convention {
  schema: z.ZodObject;
  names: Names;
  toDraft(wellShaped: Record<string, unknown>): Draft;
  toOwnPath(draftPath: Path): Path;
}

export interface Problems {
  problems: PathError[];
  /** The well-shaped part of the input as a structured draft; absent when the input is not an object at all. */
  draft?: Draft;
}

/** Every problem of `input` at once, at paths in the convention's own keys. */
export function findProblems(input: unknown, ctx: ValidationContext, convention: Convention): Problems {
  const shape = shapeErrors(convention.schema, input, convention.names);
  // A value with the wrong type is left out of the rules below; their errors about it would only repeat the type error.
  const refused = shape.filter((e) => !e.atKey).map((e) => e.path);
  const wellShaped = wellShapedPart(convention.schema, input, refused);
  if (!wellShaped) return { problems: shape };
  const draft = convention.toDraft(wellShaped);
  const ruleErrors = RULES.flatMap((rule) => rule(draft, { ...ctx, names: convention.names }))
    .map((error) => ({ ...error, path: convention.toOwnPath(error.path) }))
    .filter((error) => !refused.some((path) => isPrefixOf(path, error.path) || isPrefixOf(error.path, path)));
  return { problems: [...shape, ...ruleErrors], draft };
}
