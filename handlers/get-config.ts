import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { DraftViewSchema, etagHeader } from "./schemas/draft.ts";
import { authProblems } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/config",
  tags: ["Config"],
  operationId: "getConfig",
  summary: "The draft config.",
  description: "The draft as stored (secrets included: this is the authorized view), whether it validates, every field error, and its ETag for If-Match.",
  security,
  responses: {
    200: { description: "The draft.", headers: z.object(etagHeader), content: { "application/json": { schema: DraftViewSchema } } },
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => {
    const { etag, ...view } = c.get("services").draft.view();
    return c.json(view, 200, { ETag: etag });
  },
});
