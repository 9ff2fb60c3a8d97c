import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseYamlSafely } from "../../../core/config/index.ts";

function refusal(text: string) {
  const result = parseYamlSafely(text);
  assert.equal(result.ok, false, `expected a refusal for ${JSON.stringify(text.slice(0, 60))}`);
  return (result as { ok: false; error: { field: string; message: string; line?: number; column?: number } }).error;
}

describe("parseYamlSafely", () => {
  it("reads a mapping", () => {
    assert.deepEqual(parseYamlSafely("mode: single-node\nnetwork:\n  dns: [10.0.0.2]\n"), {
      ok: true,
      value: { mode: "single-node", network: { dns: ["10.0.0.2"] } },
    });
  });

  const REFUSED: Array<[string, string, RegExp, number, number]> = [
    ["syntax error", "a: 1\nb: [1\n", /^YAML syntax error: /, 3, 1],
    ["duplicate key", "network:\n  gateway: 10.0.0.1\n  gateway: 10.0.0.2\n", /key network.gateway appears twice/, 3, 3],
    ["two documents", "mode: join\n---\nmode: ha-init\n", /more than one YAML document/, 2, 1],
    ["a list at the top", "- a\n- b\n", /must be a mapping of keys .* not a list/, 1, 1],
    ["a scalar at the top", "hello\n", /must be a mapping of keys .* not a single value/, 1, 1],
    ["empty text", "", /node.yaml is empty/, 1, 1],
    ["only comments", "# nothing here\n", /node.yaml is empty/, 1, 1],
    ["alias without anchor", "a: *nowhere\n", /alias \*nowhere refers to no anchor/, 1, 4],
    ["alias bomb", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n", /aliases .* too heavily/, 2, 8],
    ["deep flow nesting", `a: ${"[".repeat(40)}${"]".repeat(40)}\n`, /nests deeper than 32 levels/, 1, 36],
    ["deep block nesting", Array.from({ length: 40 }, (_, i) => `${" ".repeat(i)}k:`).join("\n"), /nests deeper than 32 levels/, 33, 33],
    ["compact nesting that would overflow the parser", "- ".repeat(5000), /nests too deeply here/, 1, 1],
    ["indentation that would overflow the parser", Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n"), /nests too deeply here/, 202, 1],
    ["a token flood", `a: [${"x,".repeat(30_000)}]`, /more than 20000 YAML tokens/, 1, 20_001],
    ["over 1 MiB", `a: "${"x".repeat(1024 * 1024)}"`, /larger than 1048576 bytes/, 1, 1],
  ];
  for (const [name, text, pattern, line, column] of REFUSED) {
    it(`refuses ${name} with field "", line and column`, () => {
      const error = refusal(text);
      assert.equal(error.field, "");
      assert.match(error.message, pattern);
      assert.deepEqual([error.line, error.column], [line, column]);
    });
  }

  // A quadratic parse of a MiB takes hours, not seconds: the deadline only bounds that, however busy the machine.
  it("stays quick on hostile input", { timeout: 30_000 }, () => {
    for (const text of ["[".repeat(1024 * 1024), ",".repeat(1024 * 1024), "k: v\n".repeat(200_000)]) {
      refusal(text);
    }
  });

  it("never throws", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const result = parseYamlSafely(text);
        assert.equal(typeof result.ok, "boolean");
      }),
      { numRuns: 1000 },
    );
  });
});
