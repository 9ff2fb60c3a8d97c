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
  ] as const) {
    test(`${name} → INVALID_REQUEST: ${detail}`, () => assert.match(refusal(() => parseJsonBody(body)).detail, detail));
  }

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
