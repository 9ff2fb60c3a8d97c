import { type Document, isAlias, isCollection, isPair, LineCounter, type Node, parseDocument } from "yaml";
import { formatPath } from "../../core/config/paths.ts";
import type { Path } from "../../core/config/schema.ts";
import { offsetOf, secondDocumentMessage, unresolvedAliasMessage, YAML_LIMITS, type YamlBudget, yamlBudgetProblem, yamlProblemMessage } from "../../core/config/yaml.ts";
import { shownField } from "../../core/config/messages.ts";
import type { PlanRule } from "./plan-rules.ts";

/** A problem of the plan, at a plan path such as nodes[1].config.network.address. */
export interface PlanProblem {
  /** Which rule found it (plan-rules.ts): for tests and --json, never in the human line. */
  rule: PlanRule;
  path: Path;
  message: string;
  hint?: string;
  /** About the key itself (an unknown key), not its value. */
  atKey?: boolean;
}

export interface LocatedProblem extends PlanProblem {
  line: number;
  column: number;
}

interface PlanText {
  value: unknown;
  locate(problem: PlanProblem): LocatedProblem;
}

export const MAX_PLAN_BYTES = 1024 * 1024;
/**
 * What the plan's aliases may stand for, in values (each scalar and collection one): far more than a rack's plan
 * whose nodes share anchors, far less than an alias bomb. A count of aliases (node.yaml's 50) refused a rack of 60
 * nodes sharing one list of disks.
 */
const MAX_VALUES = 1_000_000;
/** A node's config sits three levels down (nodes, the list, config) and may nest as node.yaml does. The plan's size cap bounds its tokens. */
const PLAN_BUDGET: YamlBudget = { what: "the plan", maxDepth: YAML_LIMITS.maxDepth + 4, maxTokens: Infinity };

/** The plan's YAML, or the one problem that keeps it from being read; positions are 1-based. */
export function parsePlanYaml(text: string): { ok: true; plan: PlanText } | { ok: false; problem: LocatedProblem } {
  const lineCounter = new LineCounter();
  const at = (offset: number, message: string) => {
    const { line, col } = lineCounter.linePos(offset);
    return { ok: false as const, problem: { rule: "plan-file" as const, path: [], message, line, column: col } };
  };
  if (Buffer.byteLength(text) > MAX_PLAN_BYTES) return { ok: false, problem: { rule: "plan-file", path: [], message: "the plan is larger than 1 MiB", line: 1, column: 1 } };
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, logLevel: "error" });
  } catch (error) {
    return { ok: false, problem: { rule: "plan-file", path: [], message: `the plan could not be read: ${(error as Error).message}`, line: 1, column: 1 } };
  }
  // Where the (recursive) parser's stack gives out, the plan is said to nest too deep, and where: not "Maximum call
  // stack size exceeded". Looked for only then: the extra pass over the plan costs its start ≈ 15 ms.
  const tooDeep = () => {
    const deep = yamlBudgetProblem(text, PLAN_BUDGET);
    return deep && at(deep.offset, deep.message);
  };
  const error = [...doc.errors, ...doc.warnings][0];
  if (error?.code === "MULTIPLE_DOCS") return at(error.pos[0], secondDocumentMessage("the plan"));
  if (error) return (error.code === "RESOURCE_EXHAUSTION" && tooDeep()) || at(error.pos[0], yamlProblemMessage(doc, error));
  const aliased = aliasProblem(doc);
  if (aliased) return at(aliased.offset, aliased.message);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: -1 });
  } catch (error) {
    return (error instanceof RangeError && tooDeep()) || at(0, `the plan could not be read: ${(error as Error).message}`);
  }
  const locate = (problem: PlanProblem): LocatedProblem => {
    const { line, col } = lineCounter.linePos(offsetOf(doc, problem.path, problem.atKey));
    return { ...problem, line, column: col };
  };
  return { ok: true, plan: { value, locate } };
}

/**
 * An alias to no anchor (which toJS throws on, at no place), or where the plan, its aliases expanded, passes
 * MAX_VALUES values: the offset of the alias, or undefined. Each anchored value's size is counted once, so that a bomb is measured without being expanded; the walk
 * recurses as deep as the plan is written (which the parser went through), not as deep as its aliases nest.
 */
function aliasProblem(doc: Document.Parsed): { offset: number; message: string } | undefined {
  const sizes = new Map<unknown, number>();
  let values = 0;
  let over: { offset: number; message: string } | undefined;
  const size = (node: unknown): number => {
    if (over !== undefined) return 0;
    if (isAlias(node)) {
      const offset = node.range?.[0] ?? 0;
      const anchored = node.resolve(doc);
      if (anchored === undefined) over = { offset, message: unresolvedAliasMessage(node.source) };
      // An alias inside its own anchor stands for one value here (its value refers to itself, and is refused as no key's).
      const stands = sizes.get(anchored) ?? 1;
      values += stands;
      if (values > MAX_VALUES) over ??= { offset, message: `the plan's aliases (*name) stand for more than ${MAX_VALUES} values: write the values out, or alias fewer` };
      return stands;
    }
    if (isPair(node)) return size(node.key) + size(node.value);
    values += 1;
    let total = 1;
    if (isCollection(node)) for (const item of node.items) total += size(item);
    sizes.set(node, total);
    return total;
  };
  size(doc.contents as Node | null);
  return over;
}

/** `PLAN:LINE:COL path: message (hint)`, the shape of `validate`'s lines. */
export function formatProblem(file: string, problem: LocatedProblem): string {
  const where = shownField(formatPath(problem.path)) || "(plan)";
  return `${file}:${problem.line}:${problem.column} ${where}: ${problem.message}${problem.hint ? ` (${problem.hint})` : ""}`;
}
