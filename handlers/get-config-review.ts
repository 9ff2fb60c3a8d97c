import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { etagHeader } from "./schemas/draft.ts";
import { HostDisk } from "./schemas/host.ts";
import { authProblems, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const InstallReviewSchema = z
  .object({
    nodeYaml: z.string().meta({
      description: "The node.yaml the install writes, OSD disks by their stable path, secrets shown as \"[redacted]\" (an ha-init node's generated cluster.join_token is added when written).",
    }),
    erases: z.array(HostDisk).meta({ description: "The disks Ceph erases (storage.osdDevices), as the host reports them; empty when the install erases none." }),
  })
  .meta({ id: "InstallReview" });

const route = createRoute({
  method: "get",
  path: "/v1/installer/config/review",
  tags: ["Config"],
  operationId: "getInstallReview",
  summary: "What an install of the draft writes and erases.",
  description:
    "For a person to confirm before POST /install: the node.yaml the install writes (secrets redacted) and the disks it erases, each with its size, model, serial and stable path. Its ETag is the draft's. 422 while the draft does not validate.",
  security,
  responses: {
    200: { description: "The review.", headers: z.object(etagHeader), content: { "application/json": { schema: InstallReviewSchema } } },
    ...problemResponses(422),
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => {
    const { etag, ...review } = c.get("services").draft.review();
    return c.json(review, 200, { ETag: etag });
  },
});
