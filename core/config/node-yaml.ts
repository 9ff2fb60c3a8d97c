import { stringify } from "yaml";
import { z } from "zod";
import { MODE_TABLE, MODES, modeFromNodeYaml, NODE_YAML_MODES } from "../common/model.ts";
import { isPlainObject, objectSchemaOf, toSnake } from "./paths.ts";
import { type Draft, DraftSchema } from "./schema.ts";

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

function snakeToCamel(value: unknown, schema: z.ZodObject): unknown {
  if (!isPlainObject(value)) return value;
  const byNodeYamlKey = new Map(Object.keys(schema.shape).map((key) => [toSnake(key), key]));
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      const draftKey = byNodeYamlKey.get(key);
      if (draftKey === undefined) return [key, child];
      const childObject = objectSchemaOf(schema.shape[draftKey] as z.ZodType);
      return [draftKey, childObject ? snakeToCamel(child, childObject) : child];
    }),
  );
}

function camelToSnake(value: unknown, schema: z.ZodObject): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(schema.shape)
      .filter(([key]) => value[key] !== undefined)
      .map(([key, child]) => {
        const childObject = objectSchemaOf(child as z.ZodType);
        return [toSnake(key), childObject ? camelToSnake(value[key], childObject) : value[key]];
      }),
  );
}

/** node.yaml keys and mode names → the structured draft's; unknown keys and values stay as they are so validation can name them. */
export function nodeYamlToDraft(value: unknown): unknown {
  const draft = snakeToCamel(value, DraftSchema);
  if (!isPlainObject(draft) || !("mode" in draft)) return draft;
  return { ...draft, mode: modeFromNodeYaml(draft.mode) ?? draft.mode };
}

export function draftToNodeYaml(draft: Draft): Record<string, unknown> {
  const nodeYaml = camelToSnake(draft, DraftSchema) as Record<string, unknown>;
  const mode = MODES.find((m) => m === draft.mode);
  return mode ? { ...nodeYaml, mode: MODE_TABLE[mode].nodeYamlMode } : nodeYaml;
}

/** The node.yaml an install writes. */
export function renderNodeYaml(draft: Draft): string {
  // Every value double-quoted: no YAML reader (1.1 or 1.2) can take "yes", "0o17" or "2026-11-01" for anything but a
  // string. lineWidth 0 keeps each SSH key on one line.
  const body = stringify(draftToNodeYaml(draft), { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN", lineWidth: 0 });
  return `# node.yaml written by the Stratum installer\n${body}`;
}
