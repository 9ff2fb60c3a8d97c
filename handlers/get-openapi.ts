import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { publicProblems } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["Service"],
  operationId: "getOpenApi",
  summary: "This API's OpenAPI 3.1 document.",
  description: "Generated from the route definitions; no install code needed. Integrators generate clients from it.",
  security: [],
  responses: {
    200: { description: "The OpenAPI document.", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
    ...publicProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json(c.get("openapi")() as Record<string, never>, 200),
});
