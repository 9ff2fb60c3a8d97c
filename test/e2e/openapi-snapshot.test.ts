import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { harness, ROOT, runCli } from "../helpers/installer.ts";

const lab = harness();

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

test("GET /openapi.json serves the snapshot byte for byte, whichever routes were asked for before it", async () => {
  const expected = JSON.stringify(JSON.parse(await snapshot()));
  const first = await lab.start();
  const asFirst = await first.request("/openapi.json", { code: null });
  assert.equal(asFirst.status, 200);
  assert.equal(asFirst.text, expected);

  const later = await lab.start();
  for (const path of ["/v1/installer/install/attempts", "/v1/installer/config/schema", "/v1/installer/options", "/v1/installer/config"]) {
    assert.equal((await later.request(path)).status, 200, path);
  }
  for (let i = 0; i < 2; i++) assert.equal((await later.request("/openapi.json", { code: null })).text, expected);
});
