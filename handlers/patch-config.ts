import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { MERGE_PATCH_FORM, readDraftBody } from "./read-draft-body.ts";
import { DraftViewSchema, etagHeader, ifMatchHeaders, mergePatchContent } from "./schemas/draft.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "patch",
  path: "/v1/installer/config",
  tags: ["Config"],
  operationId: "patchConfig",
  summary: "Change part of a structured draft.",
  description:
    "A JSON merge patch (RFC 7396) on a structured draft: a member replaces, null removes, objects merge. application/json is accepted too. Honours If-Match, always: a patch with a stale one would apply to a draft its client has not seen. A raw node.yaml draft is replaced with PUT instead. 409 INSTALL_RUNNING while an attempt runs, 409 ALREADY_INSTALLED once the node is installed.",
  security,
  request: {
    headers: ifMatchHeaders,
    body: {
      content: mergePatchContent,
      required: true,
    },
  },
  responses: {
    200: { description: "The patched draft.", headers: z.object(etagHeader), content: { "application/json": { schema: DraftViewSchema } } },
    ...authProblems,
    ...problemResponses(400, 409, 412, 413, 415, 507),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    // Parsed as PUT parses its JSON: the same 400s (line and column) and 415s.
    const { config } = (await readDraftBody(c, MERGE_PATCH_FORM)) as { config: Record<string, unknown> };
    const { etag, ...view } = await c.get("services").draft.patch(config, c.req.header("if-match"), c.get("origin"));
    return c.json(view, 200, { ETag: etag });
  },
});
