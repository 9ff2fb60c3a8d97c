import type { z } from "zod";
import { type Mode, modeFromNodeYaml } from "../common/model.ts";
import { draftNames, nodeYamlNames, toNodeYamlPath } from "./messages.ts";
import { NodeYamlSchema, nodeYamlToDraft } from "./node-yaml.ts";
import { formatPath, isPrefixOf, schemaOrder } from "./paths.ts";
import { RULES } from "./rules/index.ts";
import { type Draft, DraftSchema, type Names, type Path, type PathError, type ValidationContext } from "./schema.ts";
import { shapeErrors, wellShapedPart } from "./shape.ts";
import { aliasedDiskProblems } from "./stable-disks.ts";
import { offsetOf, parseYamlDocument } from "./yaml.ts";
import type { FieldError } from "../state/records.ts";

function toFieldError({ path, message, hint }: PathError, position?: { line: number; column: number }): FieldError {
  return { field: formatPath(path), message, ...(hint !== undefined && { hint }), ...position };
}

/** How a draft is written: the structured API draft, or node.yaml. */
interface Convention {
  schema: z.ZodObject;
  names: Names;
  toDraft(wellShaped: Record<string, unknown>): Draft;
  toOwnPath(draftPath: Path): Path;
}

interface Problems {
  problems: PathError[];
  /** The well-shaped part of the input as a structured draft; absent when the input is not an object at all. */
  draft?: Draft;
}

/** Every problem of `input` at once, at paths in the convention's own keys. */
function findProblems(input: unknown, ctx: ValidationContext, convention: Convention): Problems {
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

export interface YamlDraftAnalysis {
  parsed: boolean;
  mode?: Mode;
  hostname?: string;
  /** The structured (camelCase) form of the well-shaped part of the text, when it parses. */
  draft?: Draft;
  errors: FieldError[];
}

function byPosition(a: FieldError, b: FieldError): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

/** Parses and validates raw node.yaml text; errors name node.yaml keys and carry 1-based line/column. */
export function analyzeYamlDraft(text: string, ctx: ValidationContext): YamlDraftAnalysis {
  const result = parseYamlDocument(text, true);
  if (!result.ok) return { parsed: false, errors: [result.error] };
  const { value, doc, lineCounter, duplicates } = result.parsed;
  const { problems, draft } = findProblems(value, ctx, {
    schema: NodeYamlSchema,
    names: nodeYamlNames,
    toDraft: (wellShaped) => nodeYamlToDraft(wellShaped) as Draft,
    toOwnPath: toNodeYamlPath,
  });
  const errors = [...problems, ...aliasedDiskProblems(doc, ctx.host, nodeYamlNames)]
    .map((problem) => {
      const { line, col } = lineCounter.linePos(offsetOf(doc, problem.path, problem.atKey));
      return toFieldError(problem, { line, column: col });
    })
    .concat(duplicates)
    .sort(byPosition);
  const mode = modeFromNodeYaml(value.mode);
  const hostname = typeof value.hostname === "string" ? value.hostname : undefined;
  return { parsed: true, errors, draft, ...(mode && { mode }), ...(hostname !== undefined && { hostname }) };
}
