import { createRoute, defineOpenAPIRoute } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { security } from "./schemas/common.ts";
import { nodeYamlSchemaReply, nodeYamlSchemaResponse } from "./schemas/node-yaml-schema.ts";
import { authProblems } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/config/schema",
  tags: ["Config"],
  operationId: "getNodeYamlSchema",
  summary: "The node.yaml JSON Schema.",
  description: "For editors to check node.yaml as it is written; generated from the same definition as the validator (also `node installer.js schema`).",
  security,
  responses: {
    200: nodeYamlSchemaResponse,
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({ route, handler: nodeYamlSchemaReply });
