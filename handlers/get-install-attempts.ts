import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { AttemptSummarySchema } from "./schemas/install.ts";
import { authProblems } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/install/attempts",
  tags: ["Install"],
  operationId: "listAttempts",
  summary: "Every install attempt, oldest first.",
  description:
    "Each attempt's number, kind (install or recheck-readiness), who started it, its state, the step it is at or ended at, its times and, once finished, its verdict. Events and reports are per attempt: pass its number as ?attempt=N.",
  security,
  responses: {
    200: {
      description: "The attempts.",
      content: { "application/json": { schema: z.object({ attempts: z.array(AttemptSummarySchema) }).meta({ id: "Attempts" }) } },
    },
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json({ attempts: c.get("services").attempts.list() }, 200),
});
