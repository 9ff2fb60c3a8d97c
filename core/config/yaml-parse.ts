import { type Document, isAlias, isCollection, isMap, LineCounter, parseAllDocuments } from "yaml";
import type { FieldError } from "./schema.ts";
import { yamlBudgetProblem } from "./yaml-budget.ts";
import { YAML_LIMITS } from "./yaml-limits.ts";
import { aliasProblem, duplicateKeyMessage, firstAliasOffset, syntaxMessage, tooDeep } from "./yaml-problems.ts";

export interface ParsedYaml {
  value: Record<string, unknown>;
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

export type YamlParseResult = { ok: true; parsed: ParsedYaml } | { ok: false; error: FieldError };

function failAt(message: string, lineCounter: LineCounter, offset: number): { ok: false; error: FieldError } {
  const { line, col } = lineCounter.linePos(offset);
  return { ok: false, error: { field: "", message, line, column: col } };
}

/** Before parsing, the LineCounter knows no lines yet. */
function failBeforeParse(message: string, text: string, offset: number): { ok: false; error: FieldError } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { ok: false, error: { field: "", message, line, column: offset - before.lastIndexOf("\n") } };
}

function parseOrFail(text: string, lineCounter: LineCounter): YamlParseResult {
  if (Buffer.byteLength(text, "utf8") > YAML_LIMITS.maxBytes) {
    return failBeforeParse(`node.yaml is larger than ${YAML_LIMITS.maxBytes} bytes (1 MiB)`, text, 0);
  }
  const budget = yamlBudgetProblem(text);
  if (budget) return failBeforeParse(budget.message, text, budget.offset);

  // logLevel "error": the yaml library would otherwise print process warnings (e.g. for collection keys) to stderr.
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  const [doc, second] = docs;
  if (!doc || doc.contents === null) {
    return failAt("node.yaml is empty: it must be a mapping of keys, starting with mode: and hostname:", lineCounter, 0);
  }
  const problem = [...doc.errors, ...doc.warnings][0];
  if (problem) {
    const message = problem.code === "DUPLICATE_KEY" ? duplicateKeyMessage(doc, problem.pos[0]) : syntaxMessage(problem);
    return failAt(message, lineCounter, problem.pos[0]);
  }
  if (second) {
    return failAt("node.yaml holds more than one YAML document (a second one starts here after ---): keep one", lineCounter, second.range[0]);
  }
  const deep = tooDeep(doc.contents, 1);
  if (deep) return failAt(`node.yaml nests deeper than ${YAML_LIMITS.maxDepth} levels`, lineCounter, deep.range?.[0] ?? 0);
  if (!isMap(doc.contents)) {
    const found = isAlias(doc.contents) ? "an alias" : isCollection(doc.contents) ? "a list" : "a single value";
    return failAt(`node.yaml must be a mapping of keys (key: value lines), not ${found}`, lineCounter, doc.contents.range?.[0] ?? 0);
  }
  try {
    const value = doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount }) as Record<string, unknown>;
    return { ok: true, parsed: { value, doc, lineCounter } };
  } catch (error) {
    return failAt(aliasProblem(error), lineCounter, firstAliasOffset(doc));
  }
}

/** Parses node.yaml text with limits on size, tokens, nesting and aliases. Never throws. */
export function parseYamlDocument(text: string): YamlParseResult {
  const lineCounter = new LineCounter();
  try {
    return parseOrFail(text, lineCounter);
  } catch (error) {
    // The yaml library can still throw on inputs its limits do not foresee (e.g. stack exhaustion).
    return failBeforeParse(`node.yaml could not be read: ${error instanceof Error ? error.message : String(error)}`, text, 0);
  }
}

export function parseYamlSafely(text: string): { ok: true; value: unknown } | { ok: false; error: FieldError } {
  const result = parseYamlDocument(text);
  return result.ok ? { ok: true, value: result.parsed.value } : result;
}
