import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { consoleHeaders } from "../console/headers.ts";
import { CONSOLE_JS } from "../console/script.ts";
import type { AppEnv } from "./env.ts";
import { problemResponses } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/console.js",
  tags: ["Service"],
  operationId: "getConsoleScript",
  summary: "The web console's script.",
  description: "Plain JavaScript with no dependencies; no install code needed.",
  security: [],
  responses: {
    200: { description: "The script.", content: { "text/javascript": { schema: z.string() } } },
    ...problemResponses(500),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.body(CONSOLE_JS, 200, consoleHeaders("text/javascript; charset=utf-8")),
});
