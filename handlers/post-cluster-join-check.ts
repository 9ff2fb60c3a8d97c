import { createRoute, defineOpenAPIRoute } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { JoinCheckResultSchema } from "./schemas/cluster.ts";
import { authProblems, problemResponse, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const route = createRoute({
  method: "post",
  path: "/v1/installer/cluster/join-check",
  tags: ["Cluster"],
  operationId: "checkCluster",
  summary: "Check the cluster a join draft joins, changing nothing.",
  description:
    "Runs the join check of a hyperconverged-join install's preflight on the draft's cluster fields, now: TLS to the join address within 5 s, the certificate against the token's fingerprint (before any byte is sent; the token never leaves the node), cluster name, release and clock from GET /v1/cluster/join-info, and the token's secret proven by an HMAC over a fresh nonce. Every check is reported, each failure with its code and what to fix. Changes nothing on this node or the cluster. 422 INVALID_CONFIG when the draft is not a join draft or its join address or token is missing or malformed. It takes no body (it checks the draft): one sent is not read as input (over 1 MiB it is refused, 413).",
  security,
  responses: {
    200: { description: "Every check, in the order they ran; ok when all passed.", content: { "application/json": { schema: JoinCheckResultSchema } } },
    ...problemResponses(413),
    422: problemResponse(422, "The draft is not a hyperconverged-join draft, or its cluster fields (name, join address, join token) are missing or malformed (errors); the rest of the draft need not validate for a check."),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => c.json(await c.get("services").cluster.check(c.req.raw.signal, c.get("origin")), 200),
});
