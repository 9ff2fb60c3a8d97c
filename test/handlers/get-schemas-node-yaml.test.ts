import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nodeYamlJsonSchema } from "../../core/config/index.ts";
import getConfigSchema from "../../handlers/get-config-schema.ts";
import route from "../../handlers/get-schemas-node-yaml.ts";
import { inProcessApp } from "../helpers/app.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const path = "/schemas/node.yaml.json";

describe("GET /schemas/node.yaml.json", () => {
  test("200 without the install code: the node.yaml JSON Schema, the CLI's and the API's document", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request(path, { code: null });
    const body = assertAnswers(route, 200, reply);
    assert.equal(reply.headers["content-type"], "application/schema+json");
    assert.deepEqual(body, JSON.parse(JSON.stringify(nodeYamlJsonSchema())));
    assert.deepEqual(body, assertAnswers(getConfigSchema, 200, await installer.request("/v1/installer/config/schema")));
    assert.equal(body.$id, "urn:stratum:installer:schema:node.yaml");
  });

  test("200 whatever code is sent, and wrong codes sent here lock no one out: it holds nothing secret", async (t) => {
    const installer = await inProcessApp(t);
    for (let i = 0; i < 6; i++) assertAnswers(route, 200, await installer.request(path, { code: `WRNG-${i}` }));
    assertAnswers(getConfigSchema, 200, await installer.request("/v1/installer/config/schema"));
  });
});
