import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { draftMode } from "../../../core/config/index.ts";

describe("draftMode", () => {
  it("is the draft's mode when it is a known one", () => {
    assert.equal(draftMode({ mode: "hyperconverged-join" }), "hyperconverged-join");
  });
  it("is single-node when the draft has no mode", () => {
    assert.equal(draftMode({}), "single-node");
    assert.equal(draftMode(null), "single-node");
  });
  it("is undefined for a mode it does not know, node.yaml names included", () => {
    assert.equal(draftMode({ mode: "ha-init" }), undefined);
    assert.equal(draftMode({ mode: 3 }), undefined);
  });
});
