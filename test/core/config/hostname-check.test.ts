import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hostnameProblem } from "../../../core/config/hostname-check.ts";

describe("hostnameProblem", () => {
  it("accepts RFC 1123 names", () => {
    for (const name of ["node-01", "n", "9node", "node-01.rack-a.example.net", `${"a".repeat(63)}.b`]) assert.equal(hostnameProblem(name), undefined, name);
  });

  it("names the rule a name breaks", () => {
    const cases: Array<[string, RegExp]> = [
      ["a".repeat(254), /is 254 characters long; a hostname has at most 253/],
      [".node", /empty label/],
      ["node.", /empty label/],
      ["node 01", /contains a space/],
      ["nöde", /contains "ö"/],
      ["Node", /uppercase letters; write it in lowercase \("node"\)/],
      ["10.20.0.11", /only digits and dots/],
      [`${"a".repeat(64)}.b`, /label "a{64}" is 64 characters long; a label has at most 63/],
      ["node-", /label "node-" ends with "-"/],
      ["a.-b", /label "-b" starts with "-"/],
    ];
    for (const [name, pattern] of cases) assert.match(hostnameProblem(name) ?? "", pattern, name);
  });
});
