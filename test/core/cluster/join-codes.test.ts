import assert from "node:assert/strict";
import { test } from "node:test";
import { JOIN_CODE_NEXT, joinCheckNext } from "../../../core/cluster/join-codes.ts";
import type { JoinCheck, JoinCode } from "../../../core/state/records.ts";

test("SPEC §6: a token, fingerprint or cluster problem is fixConfig, every other failure retryInstall", () => {
  assert.deepEqual(JOIN_CODE_NEXT, {
    JOIN_UNREACHABLE: "retryInstall",
    JOIN_FINGERPRINT_MISMATCH: "fixConfig",
    JOIN_CLUSTER_MISMATCH: "fixConfig",
    JOIN_RELEASE_MISMATCH: "retryInstall",
    JOIN_CLOCK_SKEW: "retryInstall",
    JOIN_TOKEN_REFUSED: "fixConfig",
  });
});

const failed = (code: JoinCode): JoinCheck => ({ name: "token", ok: false, code, detail: "" });
const notChecked: JoinCheck = { name: "cluster", ok: false, detail: "not checked: …" };

const cases: [string, JoinCheck[], string][] = [
  ["unreachable, the rest not checked", [failed("JOIN_UNREACHABLE"), notChecked], "retryInstall"],
  ["release and clock", [failed("JOIN_RELEASE_MISMATCH"), failed("JOIN_CLOCK_SKEW")], "retryInstall"],
  ["a refused token beside a skewed clock: the draft changes first", [failed("JOIN_CLOCK_SKEW"), failed("JOIN_TOKEN_REFUSED")], "fixConfig"],
  ["a cluster mismatch", [failed("JOIN_CLUSTER_MISMATCH")], "fixConfig"],
];
for (const [name, checks, next] of cases) test(`joinCheckNext: ${name} → ${next}`, () => assert.equal(joinCheckNext(checks), next));
