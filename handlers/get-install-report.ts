import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { HostFactsSchema } from "../core/host/read-facts.ts";
import type { AppEnv } from "./env.ts";
import { JoinCheckSchema } from "./schemas/cluster.ts";
import { AttemptQuerySchema, AttemptSummarySchema, StepRecordSchema } from "./schemas/install.ts";
import { authProblems, invalidRequestResponse, problemResponses } from "./schemas/problem.ts";
import { security } from "./schemas/common.ts";

const ReadinessCheckSchema = z.object({ name: z.string(), status: z.string(), detail: z.string().optional() });

export const ReportSchema = AttemptSummarySchema.extend({
  steps: z.array(StepRecordSchema).meta({ description: "Every step with its times and outcome." }),
  config: z
    .object({ source: z.enum(["structured", "yaml"]), config: z.record(z.string(), z.unknown()).optional(), yaml: z.string().optional() })
    .meta({ description: "The draft as it was installed, secrets redacted (a recheck: what its install installed, whatever the draft says since)." }),
  host: HostFactsSchema,
  payloadVersion: z.string().nullable().meta({ description: "The release of the payload the attempt ran with." }),
  nodeYamlPath: z.string().optional(),
  firstbootTail: z.array(z.string()).meta({ description: "The last lines firstboot printed, secrets redacted." }),
  readinessHistory: z
    .array(z.object({ time: z.iso.datetime(), state: z.string(), detail: z.string().optional(), checks: z.array(ReadinessCheckSchema).optional() }))
    .meta({ description: "Every change of the cloud's readiness state or checks, oldest first." }),
  joinCheck: z.array(JoinCheckSchema).optional().meta({ description: "The join check a hyperconverged-join preflight ran: every check in order." }),
  endpoints: z
    .object({
      cloudApi: z.string().optional().meta({
        description: "The cloud's API: a join node's cluster at its join address; otherwise the readiness endpoint's scheme and port at the VIP, or at the node's management address.",
        example: "https://10.20.0.10:8443",
      }),
      ssh: z.string().optional().meta({ description: "The node's management address, for SSH with an admin key.", example: "10.20.0.11" }),
    })
    .optional()
    .meta({ description: "How to reach what the attempt installed, from off the node (a recheck: what its install installed). Absent for an attempt recorded before it was kept." }),
}).meta({ id: "Report" });

const route = createRoute({
  method: "get",
  path: "/v1/installer/install/report",
  tags: ["Install"],
  operationId: "getReport",
  summary: "Everything about an attempt, for the record.",
  description: "The verdict, every step with times and outcome, the redacted config, the host inventory, the payload version, firstboot's output tail and the readiness history; of the latest attempt or ?attempt=N.",
  security,
  request: { query: AttemptQuerySchema },
  responses: {
    200: { description: "The report.", content: { "application/json": { schema: ReportSchema } } },
    ...authProblems,
    400: invalidRequestResponse("The query (attempt) is not the expected shape"),
    ...problemResponses(404),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => c.json(c.get("services").attempts.report(c.req.valid("query").attempt) as z.infer<typeof ReportSchema>, 200),
});
