import type { Context } from "hono";
import { parseYamlBody, type DraftBody } from "../core/draft.ts";
import { InstallerError } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";

const YAML_TYPES = /^(application|text)\/(x-)?yaml\s*(;|$)/i;

/**
 * A draft body: a JSON object (already parsed and shape-checked by the route's
 * validator) or raw node.yaml text. The route's media-type gate answered 415 for other types.
 */
export async function readDraftBody(c: Context<AppEnv>): Promise<DraftBody> {
  const type = c.req.header("content-type");
  if (type && YAML_TYPES.test(type)) return parseYamlBody(await c.req.text());
  if (!type) {
    throw new InstallerError({ code: "INVALID_REQUEST", detail: "The body is empty: send the draft as application/json, or a node.yaml as application/yaml." });
  }
  return { source: "structured", config: c.req.valid("json" as never) as Record<string, unknown> };
}
