import { z } from "zod";
import { MODE_TABLE, MODES, modeFromNodeYaml } from "../model.ts";
import { isPlainObject, objectSchemaOf, toSnake } from "./paths.ts";
import { DraftSchema, type Draft } from "./schema.ts";

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
