import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codeMatcher, generateInstallCode, presentedCode } from "../../../core/access/install-code.ts";

describe("codeMatcher", () => {
  const code = "ABCD-EFGH-JKMN";
  const matches = codeMatcher(code);

  for (const spelled of ["ABCD-EFGH-JKMN", "abcd-efgh-jkmn", "ABCDEFGHJKMN", "abcd efgh jkmn", " ABCD-EFGH-JKMN "]) {
    test(`accepts ${JSON.stringify(spelled)}`, () => assert.equal(matches(spelled), true));
  }

  for (const wrong of ["ABCD-EFGH-JKMP", "BBCD-EFGH-JKMN", "ABCD-EFGH-JKM", "ABCD-EFGH-JKMNA", "ABCD-EFGH-JKMN-ABCD", "", "-", "ÄBCD-EFGH-JKMN"]) {
    test(`refuses ${JSON.stringify(wrong)}`, () => assert.equal(matches(wrong), false));
  }

  test("one matcher asked again and again (it writes each presented code into the same bytes): each answer is its own code's", () => {
    // Longer and shorter wrong codes between right ones, and codes whose UTF-8 has 12 bytes or whose characters' low bytes spell the code.
    const asked = ["ABCD-EFGH-JKMN", "ABCD-EFGH-JKMNXYZ", "ABCD-EFGH-JKMN", "ABCD-EFGH-JK", "ÄBCD-EFGH-JKM", "\u0141BCD-EFGH-JKMN", "\u0141BCD-EFGH-JKM", "abcd-efgh-jkmn", "ABCD-EFGH-JKMP"];
    assert.deepEqual(asked.map(matches), [true, false, true, false, false, false, false, true, false]);
  });

  test("a fresh code matches itself and no other fresh code", () => {
    const a = generateInstallCode();
    const b = generateInstallCode();
    assert.match(a, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    assert.equal(codeMatcher(a)(a), true);
    if (a !== b) assert.equal(codeMatcher(a)(b), false);
  });
});

describe("presentedCode", () => {
  const cases: [string | undefined, string | undefined][] = [
    ["Bearer ABCD-EFGH-JKMN", "ABCD-EFGH-JKMN"],
    ["bearer   abcd efgh jkmn ", "abcd efgh jkmn"],
    ["ABCD-EFGH-JKMN", "ABCD-EFGH-JKMN"],
    ["BearerABCD", "BearerABCD"],
    [undefined, undefined],
    ["", undefined],
    ["   ", undefined],
    ["Bearer", undefined],
    ["Bearer   ", undefined],
    ["BEARER\t", undefined],
  ];
  for (const [header, code] of cases) {
    test(`${JSON.stringify(header)} → ${JSON.stringify(code)}`, () => assert.equal(presentedCode(header), code));
  }
});
