import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { formatPath, isPlainObject } from "../../../core/config/paths.ts";
import { parseFieldPath } from "../../../cli/fleet/compose.ts";
import { loadPlan } from "../../../cli/fleet/plan.ts";
import { PLAN_RULES } from "../../../cli/fleet/plan-rules.ts";
import type { PlanProblem } from "../../../cli/fleet/plan-yaml.ts";
import { ROOT, tempDir } from "../../helpers/installer.ts";

/** test/fixtures/plan-rules.json: the plan's rules, one table of cases for the fleet and the Ansible filter. */
interface Expected {
  rule: string;
  node?: string;
  path: string;
  message?: string;
}

interface Case {
  name: string;
  set?: Record<string, unknown>;
  unset?: string[];
  text?: string;
  env?: Record<string, string>;
  notInventory?: string;
  problems: Expected[];
  drafts?: Record<string, unknown>;
}

interface Table {
  rules: Record<string, { checks: string; notInAnsible?: string }>;
  base: { nodes: Array<{ name: string }> };
  cases: Case[];
}

const TABLE = JSON.parse(readFileSync(join(ROOT, "test/fixtures/plan-rules.json"), "utf8")) as Table;

/** The case's plan: base with its edits (plan paths as problems name them, nodes[1].config.network.dns). */
function planOf(c: Case): Record<string, unknown> {
  const plan = structuredClone(TABLE.base) as unknown as Record<string, unknown>;
  const walk = (path: string, make: boolean) => {
    const keys = parseFieldPath(path);
    let parent: any = plan;
    for (const key of keys.slice(0, -1)) {
      if (make && !isPlainObject(parent[key]) && !Array.isArray(parent[key])) parent[key] = {};
      parent = parent[key];
    }
    return { parent, key: keys.at(-1)! };
  };
  for (const [path, value] of Object.entries(c.set ?? {})) {
    const { parent, key } = walk(path, true);
    parent[key] = value;
  }
  for (const path of c.unset ?? []) {
    const { parent, key } = walk(path, false);
    delete parent[key];
  }
  return plan;
}

/** Where a problem is, as the table says it: a node's name and the path under it, or the path from the plan's root. */
function placeOf(plan: Record<string, unknown>, problem: PlanProblem): Omit<Expected, "message"> {
  const [first, index, ...rest] = problem.path;
  const node = first === "nodes" && typeof index === "number" ? (plan.nodes as Array<{ name?: unknown }>)[index]?.name : undefined;
  if (typeof node === "string" && node !== "") return { rule: problem.rule, node, path: formatPath(rest) };
  return { rule: problem.rule, path: formatPath(problem.path) };
}

/** {node-02} → the fleet's name for the node: nodes[1] (node-02). */
function rendered(plan: Record<string, unknown>, message: string): string {
  const names = (plan.nodes as Array<{ name: string }>).map((n) => n.name);
  return message.replace(/\{([^{}]+)\}/g, (_, name: string) => `nodes[${names.indexOf(name)}] (${name})`);
}

const key = (p: Omit<Expected, "message">) => JSON.stringify([p.rule, p.node ?? null, p.path]);

async function run(c: Case) {
  const plan = planOf(c);
  const file = join(await tempDir("stratum-plan-rules-"), "plan.yaml");
  await writeFile(file, c.text ?? JSON.stringify(plan, null, 2));
  return { plan, result: await loadPlan(file, c.env ?? {}) };
}

describe("the plan's rules: test/fixtures/plan-rules.json through the fleet's checks (issue 26)", () => {
  it("the fleet applies every rule of the table, and no rule the table lacks", () => {
    assert.deepEqual([...PLAN_RULES].sort(), Object.keys(TABLE.rules).sort());
  });

  it("every rule of the table has a case, and every case names rules of the table", () => {
    const used = new Set(TABLE.cases.flatMap((c) => c.problems.map((p) => p.rule)));
    assert.deepEqual(Object.keys(TABLE.rules).filter((rule) => !used.has(rule)), [], "rules without a case");
    assert.deepEqual([...used].filter((rule) => !(rule in TABLE.rules)), [], "rules the table does not list");
  });

  for (const c of TABLE.cases) {
    it(c.name, async () => {
      const { plan, result } = await run(c);
      const problems = result.ok ? [] : result.problems;
      const actual = problems.map((p) => ({ ...placeOf(plan, p), message: p.message }));
      assert.deepEqual(actual.map(key).sort(), c.problems.map(key).sort(), JSON.stringify(actual, null, 1));
      for (const expected of c.problems.filter((p) => p.message !== undefined)) {
        const messages = actual.filter((a) => key(a) === key(expected)).map((a) => a.message);
        assert.ok(messages.includes(rendered(plan, expected.message!)), `${key(expected)}: ${JSON.stringify(messages)}`);
      }
      for (const [name, draft] of Object.entries(c.drafts ?? {})) {
        assert.ok(result.ok);
        assert.deepEqual(result.loaded.nodes.find((n) => n.name === name)?.draft(), draft, name);
      }
    });
  }
});
