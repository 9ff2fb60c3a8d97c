import { z } from "zod";
import { NODE_YAML_MODES } from "../model.ts";
import { objectSchemaOf, toSnake } from "./paths.ts";
import { DraftSchema } from "./schema.ts";

const nodeYamlMode = z
  .enum(NODE_YAML_MODES)
  .meta({
    description:
      "How this node is installed: single-node, ha-init (founds a hyperconverged cluster), join (joins one) or control-plane (disaggregated, preview).",
    example: "single-node",
  })
  .optional();

function withMetaOf<T extends z.ZodType>(source: z.ZodType, target: T): T {
  const meta = z.globalRegistry.get(source);
  return meta ? target.meta(meta) : target;
}

function snakeCased(schema: z.ZodType): z.ZodType {
  const object = objectSchemaOf(schema);
  if (!object) return schema;
  const shape = Object.fromEntries(
    Object.entries(object.shape).map(([key, child]) => [toSnake(key), snakeCased(child as z.ZodType)]),
  );
  const snakeObject = withMetaOf(object, z.strictObject(shape));
  return schema instanceof z.ZodOptional ? withMetaOf(schema, snakeObject.optional()) : snakeObject;
}

/** DraftSchema with snake_case keys and node.yaml mode names: the one field list, renamed. */
export const NodeYamlSchema = (snakeCased(DraftSchema) as z.ZodObject).extend({ mode: nodeYamlMode }).meta({
  title: "Stratum node.yaml",
  description: "The node configuration the Stratum installer writes and reads (snake_case keys, node.yaml mode names).",
});

export function nodeYamlJsonSchema(): object {
  return z.toJSONSchema(NodeYamlSchema, {
    target: "draft-2020-12",
    // JSON Schema spells examples as a list; OpenAPI's `example` is what .meta() carries.
    override: ({ jsonSchema }) => {
      if ("example" in jsonSchema) {
        jsonSchema.examples = [jsonSchema.example];
        delete jsonSchema.example;
      }
    },
  });
}
