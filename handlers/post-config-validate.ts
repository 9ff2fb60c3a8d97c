import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { PROFILES } from "../core/common/model.ts";
import type { AppEnv } from "./env.ts";
import { readDraftBody } from "./read-draft-body.ts";
import { draftBodyContent } from "./schemas/draft.ts";
import { FieldErrorSchema, authProblems, problemResponses } from "./schemas/problem.ts";
import { ModeSchema, security } from "./schemas/common.ts";

export const ValidationSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(FieldErrorSchema).meta({ description: "Every problem at once; empty when valid." }),
    mode: ModeSchema.optional(),
    profile: z.enum(PROFILES),
  })
  .meta({ id: "Validation" });

const route = createRoute({
  method: "post",
  path: "/v1/installer/config/validate",
  tags: ["Config"],
  operationId: "validateConfig",
  summary: "Validate a config without storing it.",
  description:
    "The same validator as the draft and POST /install, for a structured draft (JSON) or a raw node.yaml. A node.yaml that does not parse is answered as PUT would store it: valid false, its parse error a field error with line and column, no mode. The stored draft is not touched.",
  security,
  request: { body: { content: draftBodyContent, required: true } },
  responses: {
    200: { description: "What the validator says.", content: { "application/json": { schema: ValidationSchema } } },
    ...authProblems,
    ...problemResponses(400, 413, 415),
  },
});

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: async (c) => {
    const { valid, errors, mode, profile } = c.get("services").draft.validate(await readDraftBody(c));
    return c.json({ valid, errors, profile, ...(mode ? { mode } : {}) }, 200);
  },
});
