import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { NODE_YAML_FORM, readDraftBody } from "./read-draft-body.ts";
import { DraftViewSchema, etagHeader, ifMatchHeaders, nodeYamlContent } from "./schemas/draft.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "put",
  path: "/v1/installer/config/node.yaml",
  tags: ["Config"],
  operationId: "putNodeYaml",
  summary: "Replace the draft with a raw node.yaml.",
  description:
    "The node.yaml is kept verbatim, comments included, and stored even when it does not validate (see errors) or does not parse: a parse error is a field error with line and column, and /status has no mode. Only an empty body is refused. Honours If-Match; a change whose draft is already the one sent is answered 200 whatever If-Match says (a retry whose answer was lost). 409 INSTALL_RUNNING while an attempt runs (it installs the draft it validated), 409 ALREADY_INSTALLED once the node is installed. GET on this path gives the node.yaml the install writes.",
  security,
  request: { headers: ifMatchHeaders, body: { content: nodeYamlContent, required: true } },
  responses: {
    200: { description: "The stored draft (source yaml).", headers: z.object(etagHeader), content: { "application/json": { schema: DraftViewSchema } } },
    ...authProblems,
    ...problemResponses(400, 409, 412, 413, 415, 507),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    const body = await readDraftBody(c, NODE_YAML_FORM);
    const { etag, ...view } = await c.get("services").draft.replace(body, c.req.header("if-match"), c.get("origin"));
    return c.json(view, 200, { ETag: etag });
  },
});
