import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nodeYamlJsonSchema } from "../../core/config/index.ts";
import route from "../../handlers/get-config-schema.ts";
import { inProcessApp } from "../helpers/app.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const path = "/v1/installer/config/schema";

describe("GET /v1/installer/config/schema", () => {
  test("200: the node.yaml JSON Schema, the document `node installer.js schema` prints", async (t) => {
    const installer = await inProcessApp(t);
    const body = assertAnswers(route, 200, await installer.request(path));
    assert.deepEqual(body, JSON.parse(JSON.stringify(nodeYamlJsonSchema())));
    const { properties } = body as { properties: { network: { properties: Record<string, unknown> } } };
    assert.ok(properties.network.properties.floating_ip_cidrs);
  });

  describeAuth(route, { path });
});
