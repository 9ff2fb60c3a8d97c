import assert from "node:assert/strict";
import { test } from "node:test";
import { harness, runCli } from "../helpers/installer.ts";

const { start } = harness();

test("GET /schemas/node.yaml.json serves the node.yaml JSON Schema without the install code: the CLI's and the API's document", async () => {
  const installer = await start();
  const served = await installer.request("/schemas/node.yaml.json", { code: null });
  assert.equal(served.status, 200, served.text);
  assert.equal(served.headers["content-type"], "application/schema+json");
  const printed = await runCli(["schema"]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.deepEqual(served.json, JSON.parse(printed.stdout));
  assert.deepEqual(served.json, (await installer.request("/v1/installer/config/schema")).json);
  assert.equal(served.json.$id, "urn:stratum:installer:schema:node.yaml");
});
