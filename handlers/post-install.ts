import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { StartedSchema } from "./schemas/install.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "post",
  path: "/v1/installer/install",
  tags: ["Install"],
  operationId: "startInstall",
  summary: "Install the draft.",
  description:
    "Starts an install attempt: preflight → write node.yaml → firstboot → wait until the cloud reports READY. 422 INVALID_CONFIG with the field errors when the draft does not validate; 409 INSTALL_BLOCKED with the blockers; 409 INSTALL_RUNNING while an attempt runs; 409 ALREADY_INSTALLED after one succeeded. With If-Match (the ETag of GET /config or GET /config/review), 412 PRECONDITION_FAILED when the draft changed since: what is installed is what was reviewed. It takes no body: one sent is not read as input (over 1 MiB it is refused, 413).",
  security,
  request: {
    headers: z.object({
      "if-match": z.string().optional().meta({ description: "The draft's ETag as reviewed (GET /config/review); the install is refused with 412 if the draft changed since." }),
    }),
  },
  responses: {
    202: { description: "The attempt started.", content: { "application/json": { schema: StartedSchema } } },
    ...problemResponses(409, 412, 413, 422, 507),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => c.json(await c.get("services").attempts.begin("install", c.get("origin"), c.req.valid("header")["if-match"]), 202),
});
