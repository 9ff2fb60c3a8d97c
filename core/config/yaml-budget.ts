import { CST, Lexer } from "yaml";
import { YAML_LIMITS } from "./yaml-limits.ts";

export interface BudgetProblem {
  message: string;
  offset: number;
}

const MARKERS = new Set<string>([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

// Each block level costs at least one column of indentation or one "- "/"? "/": " marker on its line, so this bounds the
// block nesting the parser recurses into. Far above any real node.yaml, far below what exhausts the parser's stack
// (near 900 levels, where V8 may even abort the process instead of throwing).
const MAX_LINE_DEPTH = 200;

function blockDepthProblem(text: string): BudgetProblem | undefined {
  let offset = 0;
  for (const line of text.split("\n")) {
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    const markers = /^(?:[-?:](?: +|$))*/.exec(line.slice(indent))?.[0].replace(/ /g, "").length ?? 0;
    if (indent + markers > MAX_LINE_DEPTH) {
      return { message: `node.yaml nests too deeply here (over ${MAX_LINE_DEPTH} columns of indentation and markers); it may nest at most ${YAML_LIMITS.maxDepth} levels`, offset };
    }
    offset += line.length + 1;
  }
  return undefined;
}

function tokenProblem(text: string): BudgetProblem | undefined {
  let tokens = 0;
  let flowDepth = 0;
  let offset = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (MARKERS.has(lexeme)) continue;
    tokens += 1;
    if (tokens > YAML_LIMITS.maxTokens) {
      return { message: `node.yaml has more than ${YAML_LIMITS.maxTokens} YAML tokens, far more than a node configuration needs`, offset };
    }
    if (lexeme === "[" || lexeme === "{") flowDepth += 1;
    if (lexeme === "]" || lexeme === "}") flowDepth = Math.max(0, flowDepth - 1);
    if (flowDepth > YAML_LIMITS.maxDepth) {
      return { message: `node.yaml nests deeper than ${YAML_LIMITS.maxDepth} levels`, offset };
    }
    offset += lexeme.length;
  }
  return undefined;
}

/** A cheap pass that refuses token floods and deep nesting before the (much slower, recursive) parser sees them. */
export function yamlBudgetProblem(text: string): BudgetProblem | undefined {
  return blockDepthProblem(text) ?? tokenProblem(text);
}
