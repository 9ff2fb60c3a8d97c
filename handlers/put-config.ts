import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { readDraftBody } from "./read-draft-body.ts";
import { DraftViewSchema, draftBodyContent, etagHeader, ifMatchHeaders } from "./schemas/draft.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "put",
  path: "/v1/installer/config",
  tags: ["Config"],
  operationId: "putConfig",
  summary: "Replace the draft.",
  description:
    "JSON replaces it with a structured draft. A raw node.yaml has its own operation, PUT /v1/installer/config/node.yaml; this one takes a node.yaml as application/yaml or text/yaml too, as it did before that operation existed. The draft is stored even when it does not validate (see errors). Only an empty body, or JSON that does not parse or is not an object, is refused. Honours If-Match; a change whose draft is already the one sent is answered 200 whatever If-Match says (a retry whose answer was lost). 409 INSTALL_RUNNING while an attempt runs (it installs the draft it validated), 409 ALREADY_INSTALLED once the node is installed.",
  security,
  request: { headers: ifMatchHeaders, body: { content: draftBodyContent, required: true } },
  responses: {
    200: { description: "The stored draft.", headers: z.object(etagHeader), content: { "application/json": { schema: DraftViewSchema } } },
    ...authProblems,
    ...problemResponses(400, 409, 412, 413, 415, 507),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    const body = await readDraftBody(c);
    const { etag, ...view } = await c.get("services").draft.replace(body, c.req.header("if-match"), c.get("origin"));
    return c.json(view, 200, { ETag: etag });
  },
});
