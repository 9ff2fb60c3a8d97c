import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { jsonText, sameJson } from "../../handlers/json-text.ts";

describe("jsonText: the last text again while the value is the same", () => {
  test("the same content in a new object: the same text, not made again", () => {
    const text = jsonText();
    const first = text({ phase: "configuring", attempt: 0, blockers: [{ code: "PAYLOAD_NOT_LOADED" }] });
    assert.equal(first, '{"phase":"configuring","attempt":0,"blockers":[{"code":"PAYLOAD_NOT_LOADED"}]}');
    assert.equal(text({ phase: "configuring", attempt: 0, blockers: [{ code: "PAYLOAD_NOT_LOADED" }] }), first);
  });

  test("a record changed in place, deep down, is a new text: the same object given again is compared by content", () => {
    const text = jsonText();
    const unattended: Record<string, unknown> = { state: "blocked", autoStart: true };
    const status = { attempt: 0, unattended };
    assert.equal(text(status), '{"attempt":0,"unattended":{"state":"blocked","autoStart":true}}');
    Object.assign(unattended, { state: "started", attempt: 1 });
    delete unattended.autoStart;
    assert.equal(text(status), '{"attempt":0,"unattended":{"state":"started","attempt":1}}');
    (status as { blockers?: unknown[] }).blockers = [];
    assert.equal(text(status), '{"attempt":0,"unattended":{"state":"started","attempt":1},"blockers":[]}');
  });

  test("printable JSON: the bidi controls, C1 and U+2028/9 written out as \\uXXXX, once a change; the same value parsed", () => {
    const text = jsonText();
    const status = { hostname: "a\u202eb\u2066c\u200fd\u0085e\u009bf\u2028g", blockers: [{ code: "X", detail: "\u2029" }] };
    const first = text(status);
    assert.equal(first, '{"hostname":"a\\u202eb\\u2066c\\u200fd\\u0085e\\u009bf\\u2028g","blockers":[{"code":"X","detail":"\\u2029"}]}');
    assert.deepEqual(JSON.parse(first), status);
    assert.equal(text(structuredClone(status)), first, "the same value: the same text, not made again");
  });

  test("sameJson: keys, values, lengths and types all count", () => {
    for (const [a, b] of [
      [{ a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: 2 }, { a: 1 }],
      [{ a: 1 }, { b: 1 }],
      [{ a: "1" }, { a: 1 }],
      [[1, 2], [1, 2, 3]],
      [[1], { 0: 1 }],
      [{ a: null }, { a: {} }],
      [{ a: undefined }, {}],
      [Number.NaN, null],
    ] as const) {
      assert.equal(sameJson(a, b), false, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
    assert.equal(sameJson({ a: [1, { b: "x" }], c: null }, { c: null, a: [1, { b: "x" }] }), true);
  });
});
