import { createRoute, defineOpenAPIRoute } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { nodeYamlSchemaReply, nodeYamlSchemaResponse } from "./schemas/node-yaml-schema.ts";
import { problemResponses, publicProblems } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/schemas/node.yaml.json",
  tags: ["Config"],
  operationId: "getPublicNodeYamlSchema",
  summary: "The node.yaml JSON Schema, without the install code.",
  description:
    "The same document as GET /v1/installer/config/schema, at a stable address an editor can fetch: it holds nothing secret. Put `# yaml-language-server: $schema=https://<node>:9443/schemas/node.yaml.json` at the top of a node.yaml.",
  security: [],
  responses: {
    200: nodeYamlSchemaResponse,
    ...publicProblems,
    ...problemResponses(500),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({ route, handler: nodeYamlSchemaReply });
