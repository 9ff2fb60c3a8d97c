import { createRoute, defineOpenAPIRoute } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { AttemptQuerySchema, VerdictSchema } from "./schemas/install.ts";
import { authProblems, invalidRequestResponse, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/install/verdict",
  tags: ["Install"],
  operationId: "getVerdict",
  summary: "How an attempt ended and what to do next.",
  description: "The verdict of the latest attempt, or of ?attempt=N. 404 for an unknown attempt; 409 INSTALL_RUNNING while it still runs.",
  security,
  request: { query: AttemptQuerySchema },
  responses: {
    200: { description: "The verdict.", content: { "application/json": { schema: VerdictSchema } } },
    ...authProblems,
    400: invalidRequestResponse("The query (attempt) is not the expected shape"),
    ...problemResponses(404, 409),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json(c.get("services").attempts.verdict(c.req.valid("query").attempt), 200),
});
