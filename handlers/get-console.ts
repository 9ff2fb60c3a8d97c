import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { consoleHeaders } from "../console/headers.ts";
import { CONSOLE_HTML } from "../console/page.ts";
import type { AppEnv } from "./env.ts";
import { problemResponses } from "./schemas/problem.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["Service"],
  operationId: "getConsole",
  summary: "The web console.",
  description:
    "The installer's web front end, embedded in the installer: this page with /console.js and /console.css. No install code is needed to load it; it asks for the code and then calls the public /v1/installer API with it.",
  security: [],
  responses: {
    200: { description: "The console's page.", content: { "text/html": { schema: z.string() } } },
    ...problemResponses(500),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.body(CONSOLE_HTML, 200, consoleHeaders("text/html; charset=utf-8")),
});
