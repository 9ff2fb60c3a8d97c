import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { publicProblems } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["Service"],
  operationId: "getHealthz",
  summary: "Liveness: the service answers.",
  description: "No install code needed. 200 while the process serves requests.",
  security: [],
  responses: {
    200: {
      description: "The service is up.",
      content: { "application/json": { schema: z.object({ ok: z.literal(true), version: z.string() }).meta({ id: "Health" }) } },
    },
    ...publicProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json({ ok: true as const, version: c.get("services").version }, 200),
});
