import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { draftMode, modeOptions } from "../../../core/config/index.ts";
import { BUILT_IN_CTX, CTX, HOST } from "./fixtures.ts";

describe("modeOptions", () => {
  it("offers every mode with its profile and node.yaml name, refusing the disabled preview", () => {
    assert.deepEqual(modeOptions(CTX), [
      { mode: "single-node", profile: "single-node", nodeYamlMode: "single-node", available: true, preview: false },
      { mode: "hyperconverged-init", profile: "hyperconverged", nodeYamlMode: "ha-init", available: true, preview: false },
      { mode: "hyperconverged-join", profile: "hyperconverged", nodeYamlMode: "join", available: true, preview: false },
      {
        mode: "disaggregated-control-plane",
        profile: "disaggregated",
        nodeYamlMode: "control-plane",
        available: false,
        reason: "the disaggregated profile is a preview that this release leaves disabled",
        preview: true,
      },
    ]);
  });

  const reasons = (ctx: typeof CTX) => Object.fromEntries(modeOptions(ctx).map((o) => [o.mode, o.reason]));

  it("refuses profiles the release does not ship, naming the release", () => {
    const release = { release: "2026.11.0", profiles: { "single-node": { enabled: true } } };
    assert.equal(reasons({ ...CTX, release })["hyperconverged-init"], "release 2026.11.0 does not ship the hyperconverged profile");
    assert.equal(reasons({ ...BUILT_IN_CTX, release: { ...release, release: null } })["hyperconverged-join"], "the built-in release model does not ship the hyperconverged profile");
  });

  it("refuses a profile the release ships disabled", () => {
    const release = { release: "2026.11.0", profiles: { "single-node": { enabled: true }, hyperconverged: { enabled: false } } };
    assert.equal(reasons({ ...CTX, release })["hyperconverged-init"], "release 2026.11.0 ships the hyperconverged profile disabled");
  });

  it("offers an enabled preview as available and marked preview", () => {
    const release = { release: "2026.11.0", profiles: { disaggregated: { enabled: true, preview: true } } };
    const option = modeOptions({ ...CTX, release }).find((o) => o.mode === "disaggregated-control-plane");
    assert.deepEqual([option?.available, option?.preview], [true, true]);
  });

  it("refuses hyperconverged on a host without an unused disk", () => {
    const host = { ...HOST, disks: HOST.disks.filter((d) => d.inUse) };
    const why = "hyperconverged needs at least one unused disk for Ceph; this host has none";
    assert.deepEqual([reasons({ ...CTX, host })["hyperconverged-init"], reasons({ ...CTX, host })["hyperconverged-join"]], [why, why]);
    assert.equal(reasons({ ...CTX, host })["single-node"], undefined);
  });
});

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
