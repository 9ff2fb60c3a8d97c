import { createRoute, defineOpenAPIRoute } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { StartedSchema } from "./schemas/install.ts";
import { authProblems, problemResponse, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "post",
  path: "/v1/installer/install/recheck-readiness",
  tags: ["Install"],
  operationId: "recheckReadiness",
  summary: "Wait for READY again, without running the install.",
  description:
    "Starts a new attempt that runs only the readiness wait: firstboot is not run, node.yaml is not written, and the draft is not touched. For an install whose last attempt failed at the readiness step (the cloud was not READY within the wait; a slow Ceph bootstrap or image pull is enough), which is the case when the verdict and the report say recheckReadiness. The attempt writes the same events, verdict and report as any other; its only step is readiness. 409 RECHECK_NOT_APPLICABLE when the last attempt did not fail at the readiness step, 409 INSTALL_RUNNING while an attempt runs.",
  security,
  responses: {
    202: { description: "The readiness wait started.", content: { "application/json": { schema: StartedSchema } } },
    409: problemResponse(409, "An install is running or has succeeded."),
    ...problemResponses(413, 507),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => c.json(await c.get("services").attempts.begin("recheck-readiness", c.get("origin")), 202),
});
