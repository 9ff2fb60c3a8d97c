import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "../helpers/paths.ts";

/** Every import (type imports and re-exports included) of the .ts files under `dir`, by file, relative ones resolved. */
function importsUnder(dir: string): Map<string, string[]> {
  const files: string[] = [];
  (function walk(at: string) {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  })(join(ROOT, dir));
  const spec = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  return new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, "utf8").matchAll(spec)].map((m) => m[1] ?? m[2] ?? m[3] ?? "").map((s) => (s.startsWith(".") ? resolve(dirname(file), s) : s)),
    ]),
  );
}

/** Each cycle of the import graph among the files under `dir`, as "a -> b -> a". */
function cyclesUnder(dir: string): string[] {
  const graph = importsUnder(dir);
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
  return cycles;
}

test("core/ imports nothing from hono, @hono (zod-openapi), handlers/ or cli/", () => {
  const forbidden = [...importsUnder("core")].flatMap(([file, specs]) =>
    specs.filter((s) => /^(hono|@hono\/)|zod-openapi/.test(s) || /^(handlers|cli)\//.test(relative(ROOT, s))).map((s) => `${relative(ROOT, file)} -> ${relative(ROOT, s)}`),
  );
  assert.deepEqual(forbidden, []);
});

for (const dir of ["core", "cli", "handlers"]) {
  test(`${dir}/ has no import cycle`, () => {
    assert.ok(importsUnder(dir).size > 10, `the walk found ${dir}'s files`);
    assert.deepEqual(cyclesUnder(dir), []);
  });
}

test("core/'s root holds only its index of rooms; the rest lives in rooms", () => {
  const loose = readdirSync(join(ROOT, "core")).filter((name) => !statSync(join(ROOT, "core", name)).isDirectory());
  assert.deepEqual(loose.filter((name) => name !== "README.md"), []);
});

test("the persisted records are a leaf: records.ts imports nothing", () => {
  const records = join(ROOT, "core/state/records.ts");
  assert.deepEqual(importsUnder("core/state").get(records), []);
});

test("the state dir's file names are spelled only in core/state/layout.ts", () => {
  const name = /(["'`])(installer\.json|installer\.lock|install-code|tls\.crt|tls\.key|code-cache|service\.log(?:\.1)?|last-start\.json)\1|attempt-\$\{[^}]+\}\.jsonl/;
  const spelled = ["core", "cli", "handlers", "build", "demo", "bench", "test/helpers"].flatMap((dir) =>
    [...importsUnder(dir).keys()]
      .filter((file) => relative(ROOT, file) !== "core/state/layout.ts" && name.test(readFileSync(file, "utf8")))
      .map((file) => relative(ROOT, file)),
  );
  assert.deepEqual(spelled, []);
});
