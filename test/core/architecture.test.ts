import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { cyclesAmong, modulesUnder } from "../helpers/imports.ts";
import { ROOT } from "../helpers/paths.ts";

test("core/ imports nothing from hono, @hono (zod-openapi), handlers/ or cli/", () => {
  const forbidden = [...modulesUnder("core")].flatMap(([file, { imports }]) =>
    imports.filter((s) => /^(hono|@hono\/)|zod-openapi/.test(s) || /^(handlers|cli)\//.test(relative(ROOT, s))).map((s) => `${relative(ROOT, file)} -> ${relative(ROOT, s)}`),
  );
  assert.deepEqual(forbidden, []);
});

for (const dir of ["core", "cli", "handlers"]) {
  test(`${dir}/ has no import cycle`, () => {
    const modules = modulesUnder(dir);
    assert.ok(modules.size > 10, `the walk found ${dir}'s files`);
    assert.deepEqual(cyclesAmong(modules), []);
  });
}

test("core/'s root holds only its index of rooms; the rest lives in rooms", () => {
  const loose = readdirSync(join(ROOT, "core")).filter((name) => !statSync(join(ROOT, "core", name)).isDirectory());
  assert.deepEqual(loose.filter((name) => name !== "README.md"), []);
});

test("the persisted records are a leaf: records.ts imports nothing", () => {
  const records = join(ROOT, "core/state/records.ts");
  assert.deepEqual(modulesUnder("core/state").get(records)?.imports, []);
});

test("the state dir's file names are spelled only in core/state/layout.ts", () => {
  const name = /(["'`])(installer\.json|installer\.lock|install-code|tls\.crt|tls\.key|code-cache|service\.log(?:\.1)?|last-start\.json)\1|attempt-\$\{[^}]+\}\.jsonl/;
  const spelled = ["core", "cli", "handlers", "build", "demo", "bench", "test/helpers"].flatMap((dir) =>
    [...modulesUnder(dir)].filter(([file, { source }]) => relative(ROOT, file) !== "core/state/layout.ts" && name.test(source)).map(([file]) => relative(ROOT, file)),
  );
  assert.deepEqual(spelled, []);
});
