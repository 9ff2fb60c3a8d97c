import { InstallerError } from "../common/errors.ts";
import type { DraftBody } from "./analysis.ts";
import { jsonSyntaxError, type JsonSyntaxError, lineColumnAt } from "../common/json-syntax.ts";
import { quoted } from "../config/messages.ts";

const EMPTY_BODY = "The body is empty: send the draft as a JSON object (application/json), or a node.yaml as application/yaml.";

/** A JSON draft body: an object, or INVALID_REQUEST saying what is wrong and where (line and column). */
export function parseJsonBody(text: string): DraftBody {
  if (text.trim() === "") throw new InstallerError({ code: "INVALID_REQUEST", detail: EMPTY_BODY });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The scanner takes the grammar JSON.parse takes (test/core/common/json-syntax.test.ts), so it finds the error.
    throw notJson(text, jsonSyntaxError(text)!);
  }
  // JSON.parse keeps a key's last value: the one typed first would be lost unseen (a node.yaml's is an error too).
  const twice = jsonSyntaxError(text, { uniqueKeys: true });
  if (twice?.duplicateKey !== undefined) {
    const { line, column } = lineColumnAt(text, twice.offset);
    const message = `${quoted(twice.duplicateKey)} is given twice in one object; keep one`;
    throw new InstallerError({ code: "INVALID_REQUEST", detail: `The body holds a key twice (line ${line}, column ${column}): ${message}.`, errors: [{ field: "", message, line, column }] });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw new InstallerError({ code: "INVALID_REQUEST", detail: `The body must be a JSON object (the draft), not ${what}.` });
  }
  return { source: "structured", config: value as Record<string, unknown> };
}

function notJson(text: string, { message, offset }: JsonSyntaxError): InstallerError {
  const { line, column } = lineColumnAt(text, offset);
  return new InstallerError({
    code: "INVALID_REQUEST",
    detail: `The body is not valid JSON (line ${line}, column ${column}): ${message}.`,
    errors: [{ field: "", message, line, column }],
  });
}

/** A node.yaml body is kept as text, even one that does not parse: the draft's analysis reports that at line and column (SPEC §9). */
export function yamlBody(text: string): DraftBody {
  if (text.trim() === "") throw new InstallerError({ code: "INVALID_REQUEST", detail: EMPTY_BODY });
  return { source: "yaml", yaml: text };
}
