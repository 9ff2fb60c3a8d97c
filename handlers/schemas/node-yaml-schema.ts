import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { nodeYamlJsonSchema } from "../../core/config/index.ts";

/** GET /schemas/node.yaml.json and GET /v1/installer/config/schema answer the same document. */
export const nodeYamlSchemaResponse = {
  description: "A JSON Schema (2020-12).",
  content: { "application/schema+json": { schema: z.record(z.string(), z.unknown()) } },
};

export function nodeYamlSchemaReply(c: Context): never {
  return c.json(nodeYamlJsonSchema() as Record<string, never>, 200, { "Content-Type": "application/schema+json" }) as never;
}
