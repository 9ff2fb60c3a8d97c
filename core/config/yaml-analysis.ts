import { type Mode, modeFromNodeYaml } from "../model.ts";
import { toFieldError } from "./field-error.ts";
import { nodeYamlNames, toNodeYamlPath } from "./messages.ts";
import { NodeYamlSchema, nodeYamlToDraft } from "./node-yaml.ts";
import { findProblems } from "./problems.ts";
import type { Draft, FieldError, ValidationContext } from "./schema.ts";
import { offsetOf, parseYamlDocument } from "./yaml.ts";

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
  const result = parseYamlDocument(text);
  if (!result.ok) return { parsed: false, errors: [result.error] };
  const { value, doc, lineCounter } = result.parsed;
  const { problems, draft } = findProblems(value, ctx, {
    schema: NodeYamlSchema,
    names: nodeYamlNames,
    toDraft: (wellShaped) => nodeYamlToDraft(wellShaped) as Draft,
    toOwnPath: toNodeYamlPath,
  });
  const errors = problems
    .map((problem) => {
      const { line, col } = lineCounter.linePos(offsetOf(doc, problem.path, problem.atKey));
      return toFieldError(problem, { line, column: col });
    })
    .sort(byPosition);
  const mode = modeFromNodeYaml(value.mode);
  const hostname = typeof value.hostname === "string" ? value.hostname : undefined;
  return { parsed: true, errors, draft, ...(mode && { mode }), ...(hostname !== undefined && { hostname }) };
}
