import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { test } from "node:test";
import { ROUTES } from "../../handlers/index.ts";

const HANDLERS = new URL("../../handlers/", import.meta.url);

/** Every module directly under handlers/ whose default export is a route definition, by file name. */
async function routeModules(): Promise<Map<string, object>> {
  const found = new Map<string, object>();
  for (const file of (await readdir(HANDLERS)).filter((name) => name.endsWith(".ts")).sort()) {
    const { default: definition } = (await import(new URL(file, HANDLERS).href)) as { default?: unknown };
    if (typeof definition === "object" && definition !== null && "route" in definition && "handler" in definition) found.set(file, definition);
  }
  return found;
}

test("the table mounts every route module under handlers/ exactly once, and nothing else", async () => {
  const modules = await routeModules();
  const table: readonly object[] = ROUTES;
  assert.deepEqual(
    new Map([...modules].map(([file, definition]) => [file, table.filter((entry) => entry === definition).length])),
    new Map([...modules].map(([file]) => [file, 1])),
  );
  assert.equal(table.length, modules.size, "no entry that is not a route module's definition");
});

test("no method and path is mounted twice", () => {
  const mounted = ROUTES.map(({ route }) => `${route.method} ${route.path}`);
  assert.equal(new Set(mounted).size, mounted.length);
});

test("every route module has its in-process test file beside the others: handlers/get-status.ts → test/handlers/get-status.test.ts", async () => {
  const tests = new Set(await readdir(new URL("./", import.meta.url)));
  const missing = [...(await routeModules()).keys()].map((file) => file.replace(/\.ts$/, ".test.ts")).filter((name) => !tests.has(name));
  assert.deepEqual(missing, []);
});
