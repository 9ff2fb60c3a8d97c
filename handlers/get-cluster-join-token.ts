import { createRoute, defineOpenAPIRoute } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { JoinTokenSchema } from "./schemas/cluster.ts";
import { authProblems, problemResponse } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "get",
  path: "/v1/installer/cluster/join-token",
  tags: ["Cluster"],
  operationId: "getJoinToken",
  summary: "The token joining nodes use, from the installed init node.",
  description:
    "On an installed hyperconverged-init node: the join token (STRATUM1:<SHA-256 of the cloud API's certificate>:<secret>), the address joins use (the vip), the cluster's name and release. Put token and joinAddress into each joining node's cluster.joinToken and cluster.joinAddress. 404 NOT_FOUND on a node of another mode; 409 NOT_INSTALLED before an install attempt succeeded.",
  security,
  responses: {
    200: { description: "The join token and where joins point.", content: { "application/json": { schema: JoinTokenSchema } } },
    404: problemResponse(404, "This node is not a hyperconverged-init node: it has no join token."),
    409: problemResponse(409, "The init node is not installed yet."),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => c.json(await c.get("services").cluster.joinToken(c.req.raw.signal), 200),
});
