import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { NODE_YAML_MODES, PROFILES } from "../core/common/model.ts";
import type { AppEnv } from "./env.ts";
import { HostInventorySchema } from "./schemas/host.ts";
import { authProblems } from "./schemas/problem.ts";
import { ModeSchema, security } from "./schemas/common.ts";

const ModeOptionSchema = z
  .object({
    mode: ModeSchema,
    profile: z.enum(PROFILES),
    nodeYamlMode: z.enum(NODE_YAML_MODES).meta({ description: "The mode's name in node.yaml." }),
    available: z.boolean(),
    reason: z.string().optional().meta({ description: "Why the mode is refused, when it is." }),
    preview: z.boolean().meta({ description: "A preview profile whose design is open." }),
  })
  .meta({ id: "ModeOption" });

export const OptionsSchema = z
  .object({
    modes: z.array(ModeOptionSchema),
    host: HostInventorySchema,
    release: z.string().nullable().meta({ description: "The loaded release's version; null while no payload is loaded." }),
    defaults: z
      .object({
        mode: ModeSchema,
        hostname: z.string(),
        network: z.object({ interface: z.string().optional() }),
      })
      .meta({ description: "What a front end pre-fills." }),
  })
  .meta({ id: "Options" });

const route = createRoute({
  method: "get",
  path: "/v1/installer/options",
  tags: ["Config"],
  operationId: "getOptions",
  summary: "What this node can be installed as.",
  description: "Every install mode with whether it is available (and why not), the host inventory (interfaces, disks, memory, CPUs) and defaults.",
  security,
  responses: {
    200: { description: "The options.", content: { "application/json": { schema: OptionsSchema } } },
    ...authProblems,
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json(c.get("services").options(), 200),
});
