import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changedFields } from "../../../cli/fleet/diff.ts";

describe("fleet: where an installed node's draft and the plan differ", () => {
  const cases: Array<[string, unknown, unknown, string[]]> = [
    ["the same", { a: 1, n: { x: [1] } }, { n: { x: [1] }, a: 1 }, []],
    ["a value", { a: 1 }, { a: 2 }, ["a"]],
    ["a list, as one field", { n: { dns: [1, 2] } }, { n: { dns: [1] } }, ["n.dns"]],
    ["a key on one side", { a: 1, b: { c: 1 } }, { a: 1 }, ["b"]],
  ];
  for (const [name, a, b, expected] of cases) it(name, () => assert.deepEqual(changedFields(a, b), expected));

  it("a node's value nested deeper than the stack (a node that lies): that field differs, no stack overflow", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    assert.deepEqual(changedFields({ timezone: "UTC" }, { timezone: "UTC", zzz: deep }), ["zzz"]);
  });
});
