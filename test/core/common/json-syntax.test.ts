import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { ENDS_EARLY, jsonSyntaxError } from "../../../core/common/json-syntax.ts";

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("jsonSyntaxError", () => {
  for (const [text, message, offset] of [
    ['{"mode":', ENDS_EARLY, 8],
    ['{"mode":"single-node",}', "Expected double-quoted property name", 22],
    ['{\n  "hostname": node-01\n}', "Unexpected token 'o'", 17],
    ['{"a":x}', "Unexpected token 'x'", 5],
    ['{"a":1} x', "Unexpected non-whitespace character after JSON", 8],
    ["{x}", "Expected property name or '}'", 1],
    ['{"a" 1}', "Expected ':' after property name", 5],
    ['{"a":1 x}', "Expected ',' or '}' after property value", 7],
    ["[1 x]", "Expected ',' or ']' after array element", 3],
    ["[1,]", "Unexpected token ']'", 3],
    ['"abc', ENDS_EARLY, 4],
    ['"a\u0001"', "Bad control character in string literal", 2],
    ['"\\q"', "Bad escaped character", 2],
    ['"\\u12x4"', "Bad Unicode escape", 5],
    ["1.", "Unterminated fractional number", 2],
    ["-x", "No number after minus sign", 1],
    ["1e+", "Exponent part is missing a number", 3],
    ["01", "Unexpected number", 1],
    ["nul", ENDS_EARLY, 3],
    ["\u{1F600}", "Unexpected token '\u{1F600}'", 0],
  ] as const) {
    test(`${JSON.stringify(text)}: ${message} at ${offset}`, () => assert.deepEqual(jsonSyntaxError(text), { message, offset }));
  }

  test("thousands of levels deep: no recursion", () => {
    assert.equal(jsonSyntaxError(`${"[".repeat(100_000)}${"]".repeat(100_000)}`), undefined);
    assert.deepEqual(jsonSyntaxError("[".repeat(100_000)), { message: ENDS_EARLY, offset: 100_000 });
  });

  const ALPHABET = [..."{}[]\",:0123456789-+.eEtrufalsn\\/ \n\t\ru"];
  const mutated = fc
    .tuple(fc.json(), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...ALPHABET), fc.constantFrom("insert", "replace", "delete")), { maxLength: 3 }))
    .map(([json, edits]) =>
      edits.reduce((text, [index, char, edit]) => {
        const at = text.length === 0 ? 0 : index % text.length;
        return text.slice(0, at) + (edit === "delete" ? "" : char) + text.slice(edit === "insert" ? at : at + 1);
      }, json),
    );

  test("says a text is JSON exactly when JSON.parse takes it", () => {
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ unit: fc.constantFrom(...ALPHABET) })), (text) => {
        assert.equal(jsonSyntaxError(text) === undefined, parses(text), JSON.stringify(text));
      }),
      { numRuns: 5000 },
    );
  });

  test("a valid object cut short is placed at its end", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), (object, cut) => {
        const text = JSON.stringify(object, null, cut % 3);
        const prefix = text.slice(0, 1 + (cut % (text.length - 1)));
        assert.equal(jsonSyntaxError(prefix)?.offset, prefix.length, JSON.stringify(prefix));
      }),
    );
  });
});
