import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "./paths.ts";

type Module = { source: string; imports: string[] };

const spec = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every .ts file under `dir` (relative to the repo), with its source and its imports (type imports and re-exports included), relative ones resolved to paths. */
export function modulesUnder(dir: string): Map<string, Module> {
  const files: string[] = [];
  (function walk(at: string) {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  })(join(ROOT, dir));
  return new Map(
    files.map((file) => {
      const source = readFileSync(file, "utf8");
      const imports = [...source.matchAll(spec)].map((m) => m[1] ?? m[2] ?? m[3] ?? "").map((s) => (s.startsWith(".") ? resolve(dirname(file), s) : s));
      return [file, { source, imports }];
    }),
  );
}

/** Each cycle of the import graph among `modules`, as "a -> b -> a" with repo-relative paths. */
export function cyclesAmong(modules: Map<string, Module>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of modules.get(file)?.imports ?? []) {
      if (!modules.has(dep)) continue;
      if (state.get(dep) === "open") cycles.push([...stack.slice(stack.indexOf(dep)), dep].map((p) => relative(ROOT, p)).join(" -> "));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of modules.keys()) if (!state.has(file)) visit(file);
  return cycles;
}
