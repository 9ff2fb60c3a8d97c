import { z } from "@hono/zod-openapi";
import { DraftSchema } from "../../core/config/schema.ts";
import { FieldErrorSchema } from "./problem.ts";

/**
 * A stored draft is any object (it is kept even when it does not validate); the document says so and names the Draft
 * schema, every field a draft has, typed, that one which validates takes (a client builds its drafts from it).
 */
export const StructuredDraftSchema = z.union([DraftSchema, z.record(z.string(), z.unknown())]).meta({
  id: "StructuredDraft",
  description:
    "A structured draft (camelCase; every field optional in a draft): a Draft (mode, hostname, timezone, network {interface, address, gateway, dns, ntp, vip, floatingIpCidrs}, storage {osdDevices}, cluster {name, joinAddress, joinToken}, admin {sshAuthorizedKeys, passwordHash}) once it validates, any object while drafting: it is stored even when it does not validate.",
});

const NodeYamlTextSchema = z.string().meta({
  description: "A raw node.yaml (snake_case keys, node.yaml mode names), kept verbatim with its comments.",
  example: "mode: single-node\nhostname: node-01\n",
});

/**
 * The JSON form is named by reference, not by its zod schema, so @hono/zod-openapi adds no JSON
 * validator of its own (which would refuse a node.yaml body once the body is required):
 * readDraftBody parses every form.
 */
export const structuredDraftContent = { "application/json": { schema: { $ref: "#/components/schemas/StructuredDraft" } } };

/** PATCH /config's merge patch, named by reference too (readDraftBody parses it): application/json is taken as one. */
export const mergePatchContent = {
  "application/merge-patch+json": structuredDraftContent["application/json"],
  "application/json": structuredDraftContent["application/json"],
};

/** text/yaml first: a generator that takes an operation's first media type (@hey-api/openapi-ts) then sends the string as it is, where for application/yaml it would JSON-encode it. */
export const nodeYamlContent = { "text/yaml": { schema: NodeYamlTextSchema }, "application/yaml": { schema: NodeYamlTextSchema } };

/** POST /config/validate and PUT /config take either form (JSON first: what a generator that takes the first type sends). */
export const draftBodyContent = { ...structuredDraftContent, ...nodeYamlContent };

export const DraftViewSchema = z
  .object({
    source: z.enum(["structured", "yaml"]).meta({ description: "structured: a JSON draft (config); yaml: a raw node.yaml (yaml)." }),
    config: StructuredDraftSchema.optional(),
    yaml: z.string().optional().meta({ description: "The raw node.yaml text, for source yaml." }),
    valid: z.boolean().meta({ description: "Whether the draft validates." }),
    errors: z.array(FieldErrorSchema).meta({ description: "Every problem at once; empty when valid." }),
    updatedAt: z.iso.datetime().nullable().meta({ description: "When the draft last changed; null before the first PUT." }),
  })
  .meta({ id: "DraftView" });

export const etagHeader = { ETag: z.string().meta({ description: "The draft's version, for If-Match." }) };

export const ifMatchHeaders = z.object({
  "if-match": z.string().optional().meta({ description: "The ETag from GET /config; the write is refused with 412 if the draft changed since." }),
});
