// What is wrong with a parsed node.yaml document, in words an operator acts on.
import { type Document, isCollection, isPair, isScalar, type Node, visit, type YAMLError } from "yaml";
import { formatPath } from "./paths.ts";
import { YAML_LIMITS } from "./yaml-limits.ts";

export function duplicateKeyMessage(doc: Document.Parsed, offset: number): string {
  let message = "a key appears twice in the same mapping; remove one of them";
  visit(doc, {
    Pair(_, pair, ancestors) {
      if (!isScalar(pair.key) || pair.key.range?.[0] !== offset) return undefined;
      const keys = ancestors.filter(isPair).map((p) => String(isScalar(p.key) ? p.key.value : p.key));
      message = `key ${formatPath([...keys, String(pair.key.value)])} appears twice in the same mapping; YAML would keep only one, so remove the other`;
      return visit.BREAK;
    },
  });
  return message;
}

/** The yaml library's message without the text it quotes from a tag or a block scalar header: a secret's value may be read as either. */
export function syntaxMessage(problem: YAMLError): string {
  if (problem.code === "TAG_RESOLVE_FAILED") return "YAML syntax error: Unresolved tag (a value starting with !); quote the value if the ! belongs to it";
  return `YAML syntax error: ${problem.message.replace(/^(Block scalar header includes extra characters): .*$/s, "$1 (after | or >); quote the value if it starts with | or >")}`;
}

/** The first collection nested deeper than the limit, if any. */
export function tooDeep(node: unknown, depth: number): Node | undefined {
  if (!isCollection(node)) return undefined;
  if (depth > YAML_LIMITS.maxDepth) return node;
  for (const item of node.items) {
    const found = isPair(item) ? (tooDeep(item.key, depth + 1) ?? tooDeep(item.value, depth + 1)) : tooDeep(item, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function firstAliasOffset(doc: Document.Parsed): number {
  let offset = 0;
  visit(doc, {
    Alias(_, alias) {
      offset = alias.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

export function aliasProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/excessive alias/i.test(message)) {
    return `node.yaml uses aliases (*name) too heavily: more than ${YAML_LIMITS.maxAliasCount} aliased values; write the values out`;
  }
  const unresolved = /^Unresolved alias.*: (.*)$/.exec(message);
  if (unresolved) return `alias *${unresolved[1]} refers to no anchor: &${unresolved[1]} must be set before it`;
  return `node.yaml could not be read: ${message}`;
}
