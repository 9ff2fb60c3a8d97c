import type { Context } from "hono";
import { parseJsonBody, yamlBody, type DraftBody } from "../core/draft/index.ts";
import { InstallerError } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";
import { draftBodyContent } from "./schemas/draft.ts";

const YAML_TYPES = new Set(["application/yaml", "text/yaml"]);

/**
 * A draft body: a JSON object or raw node.yaml text, in one of the media types the route
 * documents. JSON is parsed here, so a body that does not parse is refused with its line and
 * column; a node.yaml is kept as text even when it does not parse (SPEC §9).
 * (The route names its JSON schema by reference, so @hono/zod-openapi does no gating or parsing.)
 */
export async function readDraftBody(c: Context<AppEnv>): Promise<DraftBody> {
  const header = c.req.header("content-type");
  const type = header?.split(";")[0]!.trim().toLowerCase();
  const text = await c.req.text();
  if (type === undefined ? text !== "" : !Object.hasOwn(draftBodyContent, type)) {
    throw new InstallerError({
      code: "UNSUPPORTED_MEDIA_TYPE",
      detail: `${header === undefined ? "A body without a Content-Type" : `Content-Type ${header}`} is not taken here: send a structured draft as application/json, or a node.yaml as application/yaml or text/yaml.`,
    });
  }
  return type !== undefined && YAML_TYPES.has(type) ? yamlBody(text) : parseJsonBody(text);
}
