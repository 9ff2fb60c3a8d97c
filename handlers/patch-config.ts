import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { DraftViewSchema, StructuredDraftSchema, etagHeader, ifMatchHeaders } from "./schemas/draft.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "patch",
  path: "/v1/installer/config",
  tags: ["Config"],
  operationId: "patchConfig",
  summary: "Change part of a structured draft.",
  description:
    "A JSON merge patch (RFC 7396) on a structured draft: a member replaces, null removes, objects merge. application/json is accepted too. Honours If-Match. A raw node.yaml draft is replaced with PUT instead. 409 INSTALL_RUNNING while an attempt runs, 409 ALREADY_INSTALLED once the node is installed.",
  security,
  request: {
    headers: ifMatchHeaders,
    body: {
      content: { "application/merge-patch+json": { schema: StructuredDraftSchema }, "application/json": { schema: StructuredDraftSchema } },
      required: true,
    },
  },
  responses: {
    200: { description: "The patched draft.", headers: z.object(etagHeader), content: { "application/json": { schema: DraftViewSchema } } },
    ...problemResponses(400, 409, 412, 413, 415, 507),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    const { etag, ...view } = await c.get("services").draft.patch(c.req.valid("json"), c.req.header("if-match"), c.get("origin"));
    return c.json(view, 200, { ETag: etag });
  },
});
