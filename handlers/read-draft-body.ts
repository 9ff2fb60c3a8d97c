import type { Context } from "hono";
import { parseJsonBody, yamlBody, type DraftBody } from "../core/draft/index.ts";
import { InstallerError } from "../core/common/errors.ts";
import { utf8Text } from "../core/fs/read-text-file.ts";
import type { AppEnv } from "./env.ts";
import { draftBodyContent, mergePatchContent, nodeYamlContent } from "./schemas/draft.ts";

const YAML_TYPES = new Set(["application/yaml", "text/yaml"]);

/** The media types a route takes, and what its 415 tells the client to send instead. */
interface DraftForms {
  content: Record<string, unknown>;
  send: string;
}

const EITHER_FORM: DraftForms = {
  content: draftBodyContent,
  send: "send a structured draft as application/json, or a node.yaml as application/yaml or text/yaml",
};

export const NODE_YAML_FORM: DraftForms = { content: nodeYamlContent, send: "send the node.yaml as application/yaml or text/yaml" };

export const MERGE_PATCH_FORM: DraftForms = { content: mergePatchContent, send: "send a JSON merge patch as application/merge-patch+json or application/json" };

/**
 * A draft body: a JSON object or raw node.yaml text, in one of the media types the route
 * takes. JSON is parsed here, so a body that does not parse is refused with its line and
 * column; a node.yaml is kept as text even when it does not parse (SPEC §9). A body with a content coding
 * (Content-Encoding: gzip …) is refused 415, as RFC 9110 §8.4 has it.
 * (The routes name their JSON schema by reference, so @hono/zod-openapi does no gating or parsing.)
 */
export async function readDraftBody(c: Context<AppEnv>, forms: DraftForms = EITHER_FORM): Promise<DraftBody> {
  // Nothing is decoded: a compressed body read as the draft's text would be stored as its compressed bytes.
  const encoding = c.req.header("content-encoding");
  if (encoding !== undefined && encoding.split(",").some((coding) => !["", "identity"].includes(coding.trim().toLowerCase()))) {
    // What tells this 415 from one for the media type: the one coding taken (RFC 9110 §12.5.3).
    c.header("Accept-Encoding", "identity");
    throw new InstallerError({ code: "UNSUPPORTED_MEDIA_TYPE", detail: `Content-Encoding ${encoding} is not taken here: send the body as it is, without a Content-Encoding.` });
  }
  const header = c.req.header("content-type");
  const type = header?.split(";")[0]!.trim().toLowerCase();
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  // The media type first: a body of another type (a file sent as it is) is told what to send, not that it is no UTF-8.
  if (type === undefined ? bytes.length > 0 : !Object.hasOwn(forms.content, type)) {
    throw new InstallerError({
      code: "UNSUPPORTED_MEDIA_TYPE",
      detail: `${header === undefined ? "A body without a Content-Type" : `Content-Type ${header}`} is not taken here: ${forms.send}.`,
    });
  }
  // Bytes that are not UTF-8 are refused, as the handoff's node.yaml is: decoded, each would be stored as U+FFFD.
  const text = bodyText(bytes);
  return type !== undefined && YAML_TYPES.has(type) ? yamlBody(text) : parseJsonBody(text);
}

function bodyText(bytes: Uint8Array): string {
  try {
    return utf8Text(bytes, "The body");
  } catch (error) {
    throw new InstallerError({ code: "INVALID_REQUEST", detail: `${(error as Error).message}.` });
  }
}
