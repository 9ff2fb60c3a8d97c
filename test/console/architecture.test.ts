import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "../helpers/paths.ts";

const CONSOLE = join(ROOT, "console");

/** Every console module's source and its imports (type imports and re-exports included), resolved to paths. */
function modules(): Map<string, { source: string; imports: string[] }> {
  const spec = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  return new Map(
    readdirSync(CONSOLE)
      .filter((name) => name.endsWith(".ts"))
      .map((name) => {
        const file = join(CONSOLE, name);
        const source = readFileSync(file, "utf8");
        const imports = [...source.matchAll(spec)].map((m) => m[1] ?? m[2] ?? m[3] ?? "").map((s) => (s.startsWith(".") ? resolve(dirname(file), s) : s));
        return [file, { source, imports }];
      }),
  );
}

const name = (file: string) => relative(ROOT, file);

test("console/ has no import cycle", () => {
  const graph = modules();
  const cycles: string[] = [];
  const seen = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    seen.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file)?.imports ?? []) {
      if (!graph.has(next)) continue;
      if (seen.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].map(name).join(" -> "));
      else if (!seen.has(next)) visit(next);
    }
    stack.pop();
    seen.set(file, "done");
  };
  for (const file of graph.keys()) if (!seen.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});

test("console/ imports nothing from test/ (git-ignored generated output is no source of types)", () => {
  const fromTest = [...modules()].flatMap(([file, { imports }]) => imports.filter((s) => name(s).startsWith("test/")).map((s) => `${name(file)} -> ${name(s)}`));
  assert.deepEqual(fromTest, []);
});

test("console/api.ts only speaks HTTP: neither it nor anything it imports touches the DOM or the store", () => {
  const graph = modules();
  const reached = new Set<string>();
  const reach = (file: string) => {
    if (reached.has(file) || !graph.has(file)) return;
    reached.add(file);
    for (const next of graph.get(file)!.imports) reach(next);
  };
  reach(join(CONSOLE, "api.ts"));
  assert.ok(reached.size > 0, "console/api.ts exists");
  const touching = [...reached].flatMap((file) => {
    const code = graph.get(file)!.source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    const dom = code.match(/\b(document|window|sessionStorage|localStorage|HTMLElement)\b/g) ?? [];
    return [...new Set(dom)].map((word) => `${name(file)}: ${word}`).concat(/^console\/(store|state)\.ts$/.test(name(file)) ? [name(file)] : []);
  });
  assert.deepEqual(touching, []);
});

test("only console/store.ts writes the console's state", () => {
  const writers = [...modules()].filter(([file, { source }]) => name(file) !== "console/store.ts" && /\bstate(\.\w+!?|\[[^\]]*\]!?)+\s*(=(?!=)|\+\+|--|[-+*/|&]=)|Object\.assign\(\s*state\b/.test(source)).map(([file]) => name(file));
  assert.deepEqual(writers, []);
});
