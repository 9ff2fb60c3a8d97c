import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "../helpers/paths.ts";

/** Every import of core/ (type imports and re-exports included), by file. */
function coreImports(): Map<string, string[]> {
  const files: string[] = [];
  (function walk(dir: string) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  })(join(ROOT, "core"));
  const spec = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  return new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, "utf8").matchAll(spec)].map((m) => m[1] ?? m[2] ?? m[3] ?? "").map((s) => (s.startsWith(".") ? resolve(dirname(file), s) : s)),
    ]),
  );
}

test("core/ imports nothing from hono, @hono, handlers/ or cli/", () => {
  const forbidden = [...coreImports()].flatMap(([file, specs]) =>
    specs.filter((s) => /^(hono|@hono\/)/.test(s) || /^(handlers|cli)\//.test(relative(ROOT, s))).map((s) => `${relative(ROOT, file)} -> ${relative(ROOT, s)}`),
  );
  assert.deepEqual(forbidden, []);
});

test("core/ has no import cycle", () => {
  const graph = coreImports();
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (!graph.has(dep)) continue;
      if (state.get(dep) === "open") cycles.push([...stack.slice(stack.indexOf(dep)), dep].map((p) => relative(ROOT, p)).join(" -> "));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.ok(graph.size > 50, "the walk found core's files");
  assert.deepEqual(cycles, []);
});
