import openapiTS, { astToString } from "openapi-typescript";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../handlers/app.ts";

/** Committed, so the console's types come from the handlers' own schemas; test/console/api-types.test.ts fails when it is stale. */
export const CONSOLE_API_TYPES = fileURLToPath(new URL("../console/api-types.d.ts", import.meta.url));

/** The console's API types, generated from the OpenAPI document the handlers' schemas make (the version is left out: it changes nothing typed). */
export async function consoleApiTypes(): Promise<string> {
  const document = openApiDocument("0.0.0");
  const types = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
  return "// Generated from the handlers' schemas by `npm run console:types`: do not edit.\n\n" + types;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(CONSOLE_API_TYPES, await consoleApiTypes());
