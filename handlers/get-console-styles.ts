import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { consoleHeaders } from "../console/headers.ts";
import { CONSOLE_CSS } from "../console/styles.ts";
import type { AppEnv } from "./env.ts";
import { problemResponses } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/console.css",
  tags: ["Service"],
  operationId: "getConsoleStyles",
  summary: "The web console's stylesheet.",
  description: "No install code needed.",
  security: [],
  responses: {
    200: { description: "The stylesheet.", content: { "text/css": { schema: z.string() } } },
    ...problemResponses(500),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.body(CONSOLE_CSS, 200, consoleHeaders("text/css; charset=utf-8")),
});
