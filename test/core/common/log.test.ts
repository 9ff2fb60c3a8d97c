import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../../../core/common/log.ts";
import { createRedactor, REDACTED } from "../../../core/secrets/index.ts";

test("a log line stays one JSON object with every secret redacted, whether the secret is a whole field, part of one, or written with its quotes", () => {
  const token = "jt-SECRET-4711-token";
  const lines: string[] = [];
  const log = createLogger(createRedactor(() => [token, JSON.stringify(token), `'${token}'`]), () => new Date(0), { write: (line) => lines.push(line) });
  log.warn(`firstboot said ${token}`, { token, quoted: `"${token}"`, nested: { list: [`a ${token} b`] } });
  assert.equal(lines.length, 1);
  assert.ok(!lines[0]!.includes(token), lines[0]);
  assert.deepEqual(JSON.parse(lines[0]!), {
    time: "1970-01-01T00:00:00.000Z",
    level: "warn",
    message: `firstboot said ${REDACTED}`,
    token: REDACTED,
    quoted: REDACTED,
    nested: { list: [`a ${REDACTED} b`] },
  });
});
