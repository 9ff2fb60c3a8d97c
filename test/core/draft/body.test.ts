import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseJsonBody, yamlBody } from "../../../core/draft/index.ts";
import { InstallerError } from "../../../core/common/errors.ts";

function refusal(parse: () => unknown): InstallerError {
  try {
    parse();
  } catch (err) {
    assert.ok(err instanceof InstallerError, String(err));
    assert.equal(err.code, "INVALID_REQUEST");
    return err;
  }
  assert.fail("the body was taken");
}

describe("parseJsonBody", () => {
  test("an object is a structured draft", () => {
    assert.deepEqual(parseJsonBody('{"mode":"single-node"}'), { source: "structured", config: { mode: "single-node" } });
  });

  for (const [name, body, detail] of [
    ["empty", "", /^The body is empty: send the draft as a JSON object/],
    ["only whitespace", " \n", /^The body is empty/],
    ["an array", "[1,2]", /^The body must be a JSON object \(the draft\), not an array\.$/],
    ["null", "null", /not null\.$/],
    ["a string", '"single-node"', /not a string\.$/],
    ["cut short", '{"mode":', /^The body is not valid JSON \(line 1, column 9\): it ends too early/],
    ["a trailing comma", '{"mode":"single-node",}', /^The body is not valid JSON \(line 1, column 23\): Expected double-quoted property name\.$/],
    ["a bare word on line 3", '{\n  "mode": "single-node",\n  "hostname": node-01\n}', /^The body is not valid JSON \(line 3, column 16\): Unexpected token 'o'\.$/],
    ["a short body with one bad token", '{"a":x}', /^The body is not valid JSON \(line 1, column 6\): Unexpected token 'x'\.$/],
    ["text after the object", '{"a":1} x', /^The body is not valid JSON \(line 1, column 9\): Unexpected non-whitespace character after JSON\.$/],
    // JSON.parse keeps the last silently: the value typed first would be lost unseen.
    ["a key twice", '{\n  "hostname": "node-01",\n  "mode": "single-node",\n  "hostname": "node-02"\n}', /^The body holds a key twice \(line 4, column 3\): "hostname" is given twice in one object; keep one\.$/],
    ["a key twice, one of them escaped", '{"network":{"gateway":"10.0.0.1","gate\\u0077ay":"10.0.0.2"}}', /^The body holds a key twice \(line 1, column 34\): "gateway" is given twice in one object; keep one\.$/],
  ] as const) {
    test(`${name} → INVALID_REQUEST: ${detail}`, () => assert.match(refusal(() => parseJsonBody(body)).detail, detail));
  }

  test("one key in two objects, or in an array's objects, is no key given twice", () => {
    const body = '{"network":{"name":"a"},"disks":[{"name":"a"},{"name":"b"}],"name":"c"}';
    assert.deepEqual(parseJsonBody(body), { source: "structured", config: JSON.parse(body) });
  });

  test("a long key given twice is quoted cut, its control characters written out", () => {
    const key = `\\u001b[2J${"k".repeat(500)}`;
    const detail = refusal(() => parseJsonBody(`{"${key}":1,"${key}":2}`)).detail;
    assert.ok(detail.length < 200, detail);
    assert.doesNotMatch(detail, /\u001b/);
  });

  test("a bad token next to a secret: the detail does not quote the body", () => {
    const err = refusal(() => parseJsonBody('{"cluster":{"joinToken":"jt-SECRET-4711-token" x}}'));
    assert.doesNotMatch(JSON.stringify({ detail: err.detail, errors: err.errors }), /SECRET/);
    assert.match(err.detail, /line 1, column \d+/);
  });
});

describe("yamlBody", () => {
  test("an empty node.yaml is refused as empty, like an empty JSON body", () => {
    assert.match(refusal(() => yamlBody("")).detail, /^The body is empty/);
  });

  test("a node.yaml that does not parse is taken verbatim: the draft's analysis reports it (SPEC §9)", () => {
    assert.deepEqual(yamlBody("mode: [single-node\n"), { source: "yaml", yaml: "mode: [single-node\n" });
  });
});
