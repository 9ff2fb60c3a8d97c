import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { test } from "node:test";
import { cyclesAmong, modulesUnder } from "../helpers/imports.ts";
import { ROOT } from "../helpers/paths.ts";

const CONSOLE = join(ROOT, "console");

const modules = () => modulesUnder("console");

const name = (file: string) => relative(ROOT, file);

test("console/ has no import cycle", () => {
  assert.deepEqual(cyclesAmong(modules()), []);
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
