import assert from "node:assert/strict";
import { test } from "node:test";
import { formatProblems } from "../../cli/problem-format.ts";

// A node.yaml in JSON's flow style may have a key as long as the file: its path was the whole of a line.
test("a field's path 100,000 characters long is cut short in a text or github line, and in json as the API cuts it", () => {
  const field = `network.${"k".repeat(100_000)}`;
  const errors = [{ field, message: `"network.${"k".repeat(64)}…" is not a known key`, line: 3, column: 3 }];
  for (const format of ["text", "github"] as const) {
    const [line] = formatProblems("node.yaml", errors, format).split("\n");
    assert.ok(line!.length < 500, `${format}: ${line!.length} characters`);
    assert.match(line!, /network\.k+ … \[cut 97\.\d KiB\]: "network\.k{64}…" is not a known key$/, format);
  }
  assert.match(JSON.parse(formatProblems("node.yaml", errors, "json")).errors[0].field, /^network\.k+ … \[cut 97\.\d KiB\]$/);
});
