import { execFileSync } from "node:child_process";
import { OpenAPIBackend, SetMatchType } from "openapi-backend";
import { BUNDLE } from "./paths.ts";

/**
 * Live conformance: every reply the tests receive is checked against the OpenAPI document the
 * bundle generates, by openapi-backend (a third-party validator, Ajv underneath), not by our own
 * zod schemas. openapi-backend validates `application/json` bodies only, so the document's
 * problem+json schemas are offered to it under that name too.
 */
let api: Promise<OpenAPIBackend> | undefined;

function load(): Promise<OpenAPIBackend> {
  const document = JSON.parse(execFileSync(process.execPath, [BUNDLE, "openapi"], { encoding: "utf8" }));
  for (const item of Object.values<Record<string, any>>(document.paths)) {
    for (const operation of Object.values<any>(item)) {
      for (const response of Object.values<any>(operation.responses ?? {})) {
        const problem = response.content?.["application/problem+json"];
        if (problem && !response.content["application/json"]) response.content["application/json"] = problem;
      }
    }
  }
  // quick: the document is OpenAPI 3.1, which openapi-backend's own definition check (3.0) does not know; redocly lints it.
  // Ajv knows no string formats by itself (openapi-backend adds only the numeric ones): each one the document uses is checked
  // here, and a format nobody checks is an error, never a warning line per schema.
  const backend = new OpenAPIBackend({
    definition: document,
    validate: true,
    quick: true,
    strict: false,
    ajvOpts: { strict: false, logger: { log: () => undefined, warn: refuse, error: refuse } },
    customizeAjv: (ajv) => ajv.addFormat("date-time", { type: "string", validate: isDateTime }),
  });
  return backend.init();
}

function refuse(...message: unknown[]): never {
  throw new Error(`Ajv: ${message.join(" ")}`);
}

/** RFC 3339 date-time, as the API writes it (toISOString) and JSON Schema's "date-time" means it. */
function isDateTime(value: string): boolean {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(value) && !Number.isNaN(Date.parse(value));
}

interface ObservedReply {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Throws where the reply does not conform to /openapi.json. */
export async function assertConforms(reply: ObservedReply): Promise<void> {
  const problems = await violations(reply);
  if (problems.length > 0) throw new Error(`the reply does not conform to /openapi.json:\n${problems.join("\n")}\n${reply.text.slice(0, 2000)}`);
}

async function violations(reply: ObservedReply): Promise<string[]> {
  const backend = await (api ??= load());
  const url = new URL(reply.url);
  const operation = backend.router.matchOperation({ method: reply.method.toLowerCase(), path: url.pathname, query: url.search.slice(1), headers: {} });
  if (!operation) {
    return reply.status === 404 && reply.json && (reply.json as { code?: string }).code === "NOT_FOUND" ? [] : [`${reply.method} ${url.pathname} is not in the document`];
  }
  const where = `${reply.method} ${url.pathname} → ${reply.status}`;
  const documented = operation.responses?.[String(reply.status)] as { content?: Record<string, unknown>; headers?: Record<string, unknown> } | undefined;
  if (!documented) return [`${where}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(", ")})`];
  const problems: string[] = [];
  const type = String(reply.headers["content-type"] ?? "").split(";")[0]!.trim();
  if (reply.text.length > 0 && documented.content && !(type in documented.content)) {
    problems.push(`${where}: content type ${type} not documented (${Object.keys(documented.content).join(", ")})`);
  }
  if (type.endsWith("json") && reply.json !== undefined) {
    const result = backend.validator.validateResponse(reply.json, operation, reply.status);
    for (const error of result.errors ?? []) problems.push(`${where}: body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
  }
  for (const name of Object.keys(documented.headers ?? {})) {
    const value = reply.headers[name.toLowerCase()];
    if (value === undefined) problems.push(`${where}: documented header ${name} is missing`);
  }
  if (Object.keys(documented.headers ?? {}).length > 0) {
    const result = backend.validator.validateResponseHeaders(reply.headers, operation, { statusCode: reply.status, setMatchType: SetMatchType.Any });
    for (const error of result.errors ?? []) problems.push(`${where}: header${error.instancePath} ${error.message}`);
  }
  return problems;
}
