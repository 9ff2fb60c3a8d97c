import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CONSOLE_API_TYPES, consoleApiTypes } from "../../build/console-api-types.ts";

test("console/api-types.d.ts is what the handlers' schemas make today (else: npm run console:types)", async () => {
  assert.equal(readFileSync(CONSOLE_API_TYPES, "utf8"), await consoleApiTypes());
});
