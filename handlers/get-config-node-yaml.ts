import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/config/node.yaml",
  tags: ["Config"],
  operationId: "getNodeYaml",
  summary: "The node.yaml the draft renders to.",
  description: "What the install's write-config step would write: a structured draft rendered to node.yaml, or a raw node.yaml draft as it is but for its OSD disks, named by their stable /dev/disk/by-id path. 422 while the draft does not validate.",
  security,
  responses: {
    200: { description: "The node.yaml.", content: { "application/yaml": { schema: z.string() } } },
    ...problemResponses(422),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.body(c.get("services").draft.nodeYaml(), 200, { "Content-Type": "application/yaml; charset=utf-8" }),
});
