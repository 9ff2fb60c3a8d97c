import assert from "node:assert/strict";
import type { FieldError } from "../../../core/state/records.ts";

/** [field, message pattern] or, for YAML, [field, message pattern, line, column]. */
export type Expected = [string, RegExp] | [string, RegExp, number, number];

/** Every expected error is there (field exact, message matching, position exact) and nothing else. */
export function assertErrors(actual: FieldError[], expected: Expected[]): void {
  const unmatched = [...actual];
  for (const [field, pattern, line, column] of expected) {
    const index = unmatched.findIndex(
      (e) => e.field === field && pattern.test(e.message) && (line === undefined || (e.line === line && e.column === column)),
    );
    assert.ok(index >= 0, `no error ${field} ${pattern}${line ? ` at ${line}:${column}` : ""} in\n${JSON.stringify(actual, null, 2)}`);
    unmatched.splice(index, 1);
  }
  assert.deepEqual(unmatched, [], "unexpected errors");
}
