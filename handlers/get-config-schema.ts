import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { nodeYamlJsonSchema } from "../core/config/index.ts";
import type { AppEnv } from "./env.ts";
import { authProblems } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/config/schema",
  tags: ["Config"],
  operationId: "getNodeYamlSchema",
  summary: "The node.yaml JSON Schema.",
  description: "For editors to check node.yaml as it is written; generated from the same definition as the validator (also `node installer.js schema`).",
  security,
  responses: {
    200: { description: "A JSON Schema (2020-12).", content: { "application/schema+json": { schema: z.record(z.string(), z.unknown()) } } },
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json(nodeYamlJsonSchema() as Record<string, never>, 200, { "Content-Type": "application/schema+json" }) as never,
});
