import assert from "node:assert/strict";
import { test } from "node:test";
import type { Blocker } from "../../../core/common/errors.ts";
import type { ReleaseFile } from "../../../core/payload/release-file.ts";
import { payloadBlockers, payloadRelease, type PayloadState } from "../../../core/payload/state.ts";
import { BUILT_IN_RELEASE } from "../../../core/payload/release-model.ts";

const FOLDER = "/srv/payload";
const release: ReleaseFile = { model: { release: "2026.11.0", profiles: { "single-node": { enabled: true } } }, images: [] };
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

const cases: [string, PayloadState, Blocker[]][] = [
  ["ready", { kind: "ready", release }, []],
  ["not loaded", { kind: "not-loaded", detail: "No release.yaml" }, [{ code: "PAYLOAD_NOT_LOADED", detail: "No release.yaml" }]],
  ["invalid", { kind: "invalid", release, detail: "a.tar is short" }, [{ code: "PAYLOAD_INVALID", detail: "a.tar is short" }]],
  [
    "settling",
    { kind: "settling" },
    [{ code: "PAYLOAD_VERIFYING", detail: `The payload in ${FOLDER} is changing (being copied?); it is checked once it has stopped changing. The install can start when the check passes.` }],
  ],
  [
    "verifying, in MiB, before the first chunk",
    { kind: "verifying", release, doneBytes: 0, totalBytes: 96 * MiB },
    [{ code: "PAYLOAD_VERIFYING", detail: "Checking the payload's checksums: 0.0 MiB of 96.0 MiB (0%). The install can start when it is done.", progress: { doneBytes: 0, totalBytes: 96 * MiB } }],
  ],
  [
    "verifying, in GiB, naming the file",
    { kind: "verifying", release, doneBytes: 1.5 * GiB, totalBytes: 4 * GiB, file: "images/ceph.tar" },
    [{ code: "PAYLOAD_VERIFYING", detail: "Checking the payload's checksums: 1.50 GiB of 4.00 GiB (37%), now images/ceph.tar. The install can start when it is done.", progress: { doneBytes: 1.5 * GiB, totalBytes: 4 * GiB } }],
  ],
  [
    "verifying nothing (no images) counts as done",
    { kind: "verifying", release, doneBytes: 0, totalBytes: 0 },
    [{ code: "PAYLOAD_VERIFYING", detail: "Checking the payload's checksums: 0.0 MiB of 0.0 MiB (100%). The install can start when it is done.", progress: { doneBytes: 0, totalBytes: 0 } }],
  ],
];
for (const [name, state, blockers] of cases) {
  test(`blockers: ${name}`, () => assert.deepEqual(payloadBlockers(state, FOLDER), blockers));
}

const releases: [string, PayloadState, typeof BUILT_IN_RELEASE][] = [
  ["ready: the payload's", { kind: "ready", release }, release.model],
  ["verifying: the payload's", { kind: "verifying", release, doneBytes: 0, totalBytes: 1 }, release.model],
  ["settling after a release was read: still that one", { kind: "settling", release }, release.model],
  ["invalid with its release file read: that one", { kind: "invalid", release, detail: "" }, release.model],
  ["settling before any release was read: the built-in one", { kind: "settling" }, BUILT_IN_RELEASE],
  ["invalid without a release file: the built-in one", { kind: "invalid", detail: "" }, BUILT_IN_RELEASE],
  ["not loaded: the built-in one", { kind: "not-loaded", detail: "" }, BUILT_IN_RELEASE],
];
for (const [name, state, model] of releases) {
  test(`release: ${name}`, () => assert.equal(payloadRelease(state), model));
}
