import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, runCli } from "../helpers/installer.ts";

/**
 * test/fixtures/openapi.json is the document integrators generate clients from: how the routes are
 * built and mounted must not change one byte of it. Only the package's version line may move, so
 * the snapshot carries the current one.
 */
async function snapshot(): Promise<string> {
  const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
  const text = await readFile(join(ROOT, "test/fixtures/openapi.json"), "utf8");
  return text.replace(/^ {4}"version": "[^"]*"/m, `    "version": ${JSON.stringify(version)}`);
}

test("`installer openapi` prints the snapshot byte for byte", async () => {
  const printed = await runCli(["openapi"]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(printed.stdout, await snapshot());
});
