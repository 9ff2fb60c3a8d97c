import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DraftSchema, nodeYamlToDraft, parseYamlSafely, renderNodeYaml } from "../../../core/config/index.ts";
import { wellShapedDraft } from "./arbitraries.ts";
import { HA_JOIN } from "./fixtures.ts";

describe("renderNodeYaml", () => {
  it("writes snake_case keys, the node.yaml mode name and one line per SSH key", () => {
    const text = renderNodeYaml(HA_JOIN);
    assert.match(text, /^mode: "join"$/m);
    assert.match(text, /^  join_address: "10\.20\.0\.10:9443"$/m);
    assert.match(text, /^  floating_ip_cidrs:$/m);
    assert.match(text, /^    - "ssh-ed25519 AAAA\S+ ops@example"$/m);
    assert.doesNotMatch(text, /^\s*-?\s*[a-z]+[A-Z]\w*:/m, "no camelCase key");
  });

  it("quotes every string, so no YAML reader takes one for something else", () => {
    assert.match(renderNodeYaml({ hostname: "yes", timezone: "2026-11-01" }), /hostname: "yes"\ntimezone: "2026-11-01"/);
  });

  it("round-trips: structured → node.yaml text → structured is lossless", () => {
    fc.assert(
      fc.property(wellShapedDraft, (draft) => {
        assert.ok(DraftSchema.safeParse(draft).success);
        const parsed = parseYamlSafely(renderNodeYaml(draft));
        assert.ok(parsed.ok, JSON.stringify(parsed));
        assert.deepEqual(nodeYamlToDraft(parsed.value), draft);
      }),
      { numRuns: 300 },
    );
  });
});
