import { CST, type Document, isAlias, isCollection, isMap, isPair, isScalar, isSeq, Lexer, LineCounter, type Node, parseAllDocuments, visit, type YAMLError } from "yaml";
import { capText } from "../common/cut-text.ts";
import { printable } from "../common/printable.ts";
import { MAX_SAME_ERRORS_SHOWN, quoted, shown } from "./messages.ts";
import { formatPath } from "./paths.ts";
import type { Path } from "./schema.ts";
import type { FieldError } from "../state/records.ts";

/**
 * How deep a config may nest, as node.yaml or as a JSON draft (core/draft refuses a deeper one): far above a real
 * node.yaml's few levels, and one limit, so that `validate`, PUT /config and POST /config/validate agree.
 */
export const MAX_CONFIG_DEPTH = 32;

export const YAML_LIMITS = {
  maxBytes: 1024 * 1024,
  maxAliasCount: 50,
  maxDepth: MAX_CONFIG_DEPTH,
  /** A full node.yaml is a few thousand tokens; the yaml parser slows badly on pathological token streams. */
  maxTokens: 20_000,
} as const;

interface BudgetProblem {
  message: string;
  offset: number;
}

const MARKERS = new Set<string>([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

// Each block level costs at least one column of indentation or one "- "/"? "/": " marker on its line, so this bounds the
// block nesting the parser recurses into. Far above any real node.yaml, far below what exhausts the parser's stack
// (near 900 levels, where V8 may even abort the process instead of throwing).
const MAX_LINE_DEPTH = 200;

/** What a YAML file may hold before the parser sees it, and the file's name in the messages ("node.yaml", "the plan"). */
export interface YamlBudget {
  what: string;
  maxDepth: number;
  maxTokens: number;
}

const NODE_YAML_BUDGET: YamlBudget = { what: "node.yaml", maxDepth: YAML_LIMITS.maxDepth, maxTokens: YAML_LIMITS.maxTokens };

function blockDepthProblem(text: string, budget: YamlBudget): BudgetProblem | undefined {
  let offset = 0;
  for (const line of text.split("\n")) {
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    const markers = /^(?:[-?:](?: +|$))*/.exec(line.slice(indent))?.[0].replace(/ /g, "").length ?? 0;
    if (indent + markers > MAX_LINE_DEPTH) {
      return { message: `${budget.what} nests too deeply here (over ${MAX_LINE_DEPTH} columns of indentation and markers); it may nest at most ${budget.maxDepth} levels`, offset };
    }
    offset += line.length + 1;
  }
  return undefined;
}

function tokenProblem(text: string, budget: YamlBudget): BudgetProblem | undefined {
  let tokens = 0;
  let flowDepth = 0;
  let offset = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (MARKERS.has(lexeme)) continue;
    tokens += 1;
    if (tokens > budget.maxTokens) {
      return { message: `${budget.what} has more than ${budget.maxTokens} YAML tokens, far more than a node configuration needs`, offset };
    }
    if (lexeme === "[" || lexeme === "{") flowDepth += 1;
    if (lexeme === "]" || lexeme === "}") flowDepth = Math.max(0, flowDepth - 1);
    if (flowDepth > budget.maxDepth) {
      return { message: `${budget.what} nests deeper than ${budget.maxDepth} levels`, offset };
    }
    offset += lexeme.length;
  }
  return undefined;
}

/** A cheap pass that refuses token floods and deep nesting before the (much slower, recursive) parser sees them. */
export function yamlBudgetProblem(text: string, budget: YamlBudget = NODE_YAML_BUDGET): BudgetProblem | undefined {
  return blockDepthProblem(text, budget) ?? tokenProblem(text, budget);
}

// What is wrong with a parsed node.yaml document, in words an operator acts on.

/**
 * A YAML problem of the yaml library's in words: a key given twice named by its path; any other without the text the
 * library quotes from a tag or a block scalar header (a secret's value may be read as either). node.yaml's and the plan's.
 */
export function yamlProblemMessage(doc: Document.Parsed, problem: YAMLError): string {
  return problem.code === "DUPLICATE_KEY" ? duplicateKeyMessage(doc, problem.pos[0]) : syntaxMessage(problem);
}

function duplicateKeyMessage(doc: Document.Parsed, offset: number): string {
  let message = "a key appears twice in the same mapping; remove one of them";
  visit(doc, {
    Pair(_, pair, ancestors) {
      if (!isScalar(pair.key) || pair.key.range?.[0] !== offset) return undefined;
      const keys = ancestors.filter(isPair).map((p) => String(isScalar(p.key) ? p.key.value : p.key));
      message = `key ${shown(formatPath([...keys, String(pair.key.value)]))} appears twice in the same mapping; YAML would keep only one, so remove the other`;
      return visit.BREAK;
    },
  });
  return message;
}

/** How much of the yaml library's message is kept: it may quote the text it stopped at (an escape, a directive). */
const MAX_SYNTAX_MESSAGE_BYTES = 240;

/**
 * The yaml library's message without the text it quotes from a tag or a block scalar header (a secret's value may be
 * read as either); what else it quotes (an escape, a directive) printable and cut short.
 */
function syntaxMessage(problem: YAMLError): string {
  if (problem.code === "TAG_RESOLVE_FAILED") return "YAML syntax error: Unresolved tag (a value starting with !); quote the value if the ! belongs to it";
  const message = problem.message.replace(/^(Block scalar header includes extra characters): .*$/s, "$1 (after | or >); quote the value if it starts with | or >");
  return `YAML syntax error: ${capText(printable(message), MAX_SYNTAX_MESSAGE_BYTES).text}`;
}

/** A second YAML document, which node.yaml and the plan may not hold: `what` names the file. */
export function secondDocumentMessage(what: string): string {
  return `${what} holds more than one YAML document (a second one starts here after ---): keep one`;
}

/** An alias (*name) with no anchor (&name) before it: node.yaml's and the plan's. The name as `quoted` shows a value. */
export function unresolvedAliasMessage(name: string): string {
  const [alias, anchor] = /^[\w.-]{1,64}$/.test(name) ? [`*${name}`, `&${name}`] : [quoted(`*${name}`), quoted(`&${name}`)];
  return `alias ${alias} refers to no anchor: ${anchor} must be set before it`;
}

/** The first collection nested deeper than the limit, if any. */
function tooDeep(node: unknown, depth: number): Node | undefined {
  if (!isCollection(node)) return undefined;
  if (depth > YAML_LIMITS.maxDepth) return node;
  for (const item of node.items) {
    const found = isPair(item) ? (tooDeep(item.key, depth + 1) ?? tooDeep(item.value, depth + 1)) : tooDeep(item, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function firstAliasOffset(doc: Document.Parsed): number {
  let offset = 0;
  visit(doc, {
    Alias(_, alias) {
      offset = alias.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function aliasProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/excessive alias/i.test(message)) {
    return `node.yaml uses aliases (*name) too heavily: more than ${YAML_LIMITS.maxAliasCount} aliased values; write the values out`;
  }
  const unresolved = /^Unresolved alias.*: (.*)$/.exec(message);
  if (unresolved) return unresolvedAliasMessage(unresolved[1]!);
  return `node.yaml could not be read: ${capText(printable(message), MAX_SYNTAX_MESSAGE_BYTES).text}`;
}

interface ParsedYaml {
  value: Record<string, unknown>;
  doc: Document.Parsed;
  lineCounter: LineCounter;
  /** With `duplicatesToo`: each key written twice in a mapping (the value read is the last one). */
  duplicates: FieldError[];
}

type YamlParseResult = { ok: true; parsed: ParsedYaml } | { ok: false; error: FieldError };

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

/** A --- with nothing after it but comments: an empty scalar, not a value written as null or ~. */
const nothingWritten = (contents: Node): boolean => isScalar(contents) && contents.value === null && contents.range?.[0] === contents.range?.[1];

function parseOrFail(text: string, lineCounter: LineCounter, duplicatesToo: boolean): YamlParseResult {
  if (Buffer.byteLength(text, "utf8") > YAML_LIMITS.maxBytes) {
    return failBeforeParse(`node.yaml is larger than ${YAML_LIMITS.maxBytes} bytes (1 MiB)`, text, 0);
  }
  const budget = yamlBudgetProblem(text);
  if (budget) return failBeforeParse(budget.message, text, budget.offset);

  // logLevel "error": the yaml library would otherwise print process warnings (e.g. for collection keys) to stderr.
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  const [doc, second] = docs;
  if (!doc || doc.contents === null || nothingWritten(doc.contents)) {
    return failAt("node.yaml is empty: it must be a mapping of keys, starting with mode: and hostname:", lineCounter, 0);
  }
  const problems = [...doc.errors, ...doc.warnings];
  const duplicates = duplicatesToo && problems.every((p) => p.code === "DUPLICATE_KEY") ? problems : [];
  const problem = duplicates.length > 0 ? undefined : problems[0];
  if (problem) {
    return failAt(yamlProblemMessage(doc, problem), lineCounter, problem.pos[0]);
  }
  if (second) {
    return failAt(secondDocumentMessage("node.yaml"), lineCounter, second.range[0]);
  }
  const deep = tooDeep(doc.contents, 1);
  if (deep) return failAt(`node.yaml nests deeper than ${YAML_LIMITS.maxDepth} levels`, lineCounter, deep.range?.[0] ?? 0);
  if (!isMap(doc.contents)) {
    const found = isAlias(doc.contents) ? "an alias" : isCollection(doc.contents) ? "a list" : "a single value";
    return failAt(`node.yaml must be a mapping of keys (key: value lines), not ${found}`, lineCounter, doc.contents.range?.[0] ?? 0);
  }
  try {
    const value = doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount }) as Record<string, unknown>;
    return { ok: true, parsed: { value, doc, lineCounter, duplicates: duplicateErrors(doc, duplicates, lineCounter) } };
  } catch (error) {
    return failAt(aliasProblem(error), lineCounter, firstAliasOffset(doc));
  }
}

/** A key written twice, each at its place: the first MAX_SAME_ERRORS_SHOWN, then one error for the rest, where the next one is. */
function duplicateErrors(doc: Document.Parsed, duplicates: YAMLError[], lineCounter: LineCounter): FieldError[] {
  const errors = duplicates.slice(0, MAX_SAME_ERRORS_SHOWN).map((d) => failAt(duplicateKeyMessage(doc, d.pos[0]), lineCounter, d.pos[0]).error);
  const next = duplicates[MAX_SAME_ERRORS_SHOWN];
  if (next) errors.push(failAt(`and ${duplicates.length - MAX_SAME_ERRORS_SHOWN} more keys appear twice in their mapping`, lineCounter, next.pos[0]).error);
  return errors;
}

/**
 * Parses node.yaml text with limits on size, tokens, nesting and aliases. Never throws. A key written twice in a
 * mapping fails the parse, unless `duplicatesToo` (validation, which reports every problem at once): then it parses,
 * the duplicates in `parsed.duplicates`.
 */
export function parseYamlDocument(text: string, duplicatesToo = false): YamlParseResult {
  const lineCounter = new LineCounter();
  try {
    return parseOrFail(text, lineCounter, duplicatesToo);
  } catch (error) {
    // The yaml library can still throw on inputs its limits do not foresee (e.g. stack exhaustion).
    return failBeforeParse(`node.yaml could not be read: ${capText(printable(error instanceof Error ? error.message : String(error)), MAX_SYNTAX_MESSAGE_BYTES).text}`, text, 0);
  }
}

export function parseYamlSafely(text: string): { ok: true; value: unknown } | { ok: false; error: FieldError } {
  const result = parseYamlDocument(text);
  return result.ok ? { ok: true, value: result.parsed.value } : result;
}

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

/**
 * `text` with scalars replaced, every other byte as written. A block scalar's range takes in its last line break,
 * which the replacement keeps so the next key stays on its own line.
 */
export function replaceScalars(text: string, edits: ReadonlyArray<{ range: readonly [number, number, ...number[]]; value: string }>): string {
  const unique = [...new Map(edits.map((edit) => [edit.range[0], edit])).values()].sort((a, b) => a.range[0] - b.range[0]);
  return unique.reduceRight((out, { range: [start, end], value }) => {
    const lineBreak = /\r?\n$/.exec(out.slice(start, end))?.[0] ?? "";
    return out.slice(0, start) + JSON.stringify(value) + lineBreak + out.slice(end);
  }, text);
}
