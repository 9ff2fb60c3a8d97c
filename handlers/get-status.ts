import { createRoute, defineOpenAPIRoute, z } from "@hono/zod-openapi";
import { PROFILES } from "../core/common/model.ts";
import { STEPS, UNATTENDED_STATES } from "../core/state/records.ts";
import type { AppEnv } from "./env.ts";
import { jsonText } from "./json-text.ts";
import { BlockerSchema, FieldErrorSchema, authProblems } from "./schemas/problem.ts";
import { MODE_DESCRIPTION, ModeSchema, PhaseSchema, nameSchema, security } from "./schemas/common.ts";

const UnattendedSchema = z
  .object({
    state: z.enum(UNATTENDED_STATES).meta({
      description:
        "started: it validated and the service started install attempt `attempt` with no install code (at once, or once its blockers cleared); follow it like any install. " +
        "invalid: it did not validate (errors), so nothing started; it is the draft, to fix and install. " +
        "blocked: it validated, but blockers refused the install, so nothing started; it is the draft. While autoStart is true it starts by itself once they clear; otherwise a person installs it.",
    }),
    autoStart: z.boolean().optional().meta({
      description:
        "blocked only. True while the install still starts by itself once the blockers clear: nobody has changed the draft or started an install since the file was taken. A PUT of the config or a started install hands the draft to the person and turns this off for good. Absent otherwise.",
    }),
    origin: z.string().meta({
      description: "Where stage 1 found it, e.g. node.yaml on the partition labeled STRATUM. Empty when the node's install record does not say.",
    }),
    takenAt: z.iso.datetime().meta({ description: "When the service took it." }),
    attempt: z.number().int().optional().meta({ description: "The install attempt it started (started only)." }),
    errors: z.array(FieldErrorSchema).optional().meta({ description: "Why it did not validate (invalid only), by node.yaml key." }),
  })
  .meta({
    id: "Unattended",
    description:
      "An unattended stage 2. Stage 1 found a node.yaml beside install.yaml on the install medium and left it on the node; the service took it at its first start, made it the draft (source yaml), removed the file, and either started the install by itself or left it waiting. Absent when there was no such file. It records what became of the file. " +
      "Only a blocked one that waits (autoStart) changes later: once its blockers clear it is decided again as at the first start, so state becomes started with attempt (or invalid, should the machine no longer accept it); and a person who takes the draft over ends the wait. A later draft or install is the person's.",
  });

export const StatusSchema = z
  .object({
    phase: PhaseSchema,
    version: z.string().meta({ description: "The installer's version line." }),
    mode: ModeSchema.optional().meta({ description: MODE_DESCRIPTION }),
    profile: nameSchema(
      PROFILES,
      "The draft's profile: the one its install mode installs (single-node for a draft with no mode, and for a raw node.yaml whose mode cannot be read).",
    ),
    hostname: z.string().meta({ description: "The draft's hostname, or the machine's own while the draft has none." }),
    url: z.string().meta({ description: "Where this API is served." }),
    configValid: z.boolean().meta({ description: "Whether the current draft validates." }),
    attempt: z.number().int().min(0).meta({ description: "Install attempts started so far (0 before the first)." }),
    step: nameSchema(STEPS, "The step running now, while installing.").optional(),
    startedAt: z.iso.datetime().optional().meta({ description: "When the latest attempt started." }),
    finishedAt: z.iso.datetime().optional().meta({ description: "When the latest attempt finished." }),
    blockers: z.array(BlockerSchema).optional().meta({
      description:
        "Why POST /install would be refused right now, whatever the config says: for example, the offline payload did not load (PAYLOAD_NOT_LOADED). Empty or absent when an install can start. A front end shows these before offering the install.",
    }),
    unattended: UnattendedSchema.optional(),
  })
  .meta({
    id: "Status",
    description:
      "mode is the draft's install mode: its mode, or single-node for a structured draft with none; for a raw node.yaml, the install mode its mode resolves to. Absent when a raw node.yaml does not parse or names no mode the installer knows.",
  });

const route = createRoute({
  method: "get",
  path: "/v1/installer/status",
  tags: ["Installer"],
  operationId: "getStatus",
  summary: "Where the install stands.",
  description:
    "The phase (configuring, installing, done, failed), the installer's version, the draft's install mode and profile, whether the current draft config is valid, and what became of a node.yaml stage 1 brought for an unattended install (unattended).",
  security,
  responses: {
    200: { description: "The install's status.", content: { "application/json": { schema: StatusSchema } } },
    ...authProblems,
  },
});

// The status is made for every request (it is always of this moment); its text only when it changed.
const statusText = jsonText();

export default defineOpenAPIRoute<typeof route, AppEnv>({
  route,
  handler: (c) => {
    const status: z.infer<typeof StatusSchema> = c.get("services").status();
    // The JSON reply c.json would send, as text: its type is the schema's, checked on the line above.
    return c.body(statusText(status), 200, { "Content-Type": "application/json" }) as never;
  },
});
