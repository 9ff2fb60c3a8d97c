import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { judgeJoinInfo, parseJoinInfo, type JoinExpectations, type JoinInfo } from "../../../core/cluster/join-info.ts";

const T0 = new Date("2026-11-02T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

describe("parseJoinInfo", () => {
  test("reads cluster, release and time", () => {
    const body = JSON.stringify({ cluster: "lab-1", release: "2026.11.0", time: T0.toISOString() });
    assert.deepEqual(parseJoinInfo({ status: 200, body }), { ok: true, info: { cluster: "lab-1", release: "2026.11.0", time: T0 } });
  });

  const refused: [string, number, string, string][] = [
    ["another status", 503, "{}", "it answered HTTP 503"],
    ["a body that is not JSON", 200, "<html>", "its answer is not JSON"],
    ["JSON null", 200, "null", "its answer has no usable cluster, release, time"],
    ["a missing time", 200, JSON.stringify({ cluster: "lab-1", release: "r" }), "its answer has no usable time"],
    ["a cluster that is not a string", 200, JSON.stringify({ cluster: 7, release: "r", time: T0 }), "its answer has no usable cluster"],
    ["an empty release", 200, JSON.stringify({ cluster: "c", release: "", time: T0 }), "its answer has no usable release"],
    ["an overlong cluster name", 200, JSON.stringify({ cluster: "c".repeat(257), release: "r", time: T0 }), "its answer has no usable cluster"],
    ["a time that is no date", 200, JSON.stringify({ cluster: "c", release: "r", time: "yesterday" }), "its time is not a date"],
  ];
  for (const [name, status, body, problem] of refused) {
    test(`refuses ${name}`, () => assert.deepEqual(parseJoinInfo({ status, body }), { ok: false, problem: `${problem}; expected 200 with {cluster, release, time}` }));
  }
});

describe("judgeJoinInfo", () => {
  const info: JoinInfo = { cluster: "lab-1", release: "2026.11.0", time: at(0) };
  const expect: JoinExpectations = { clusterName: "lab-1", release: "2026.11.0", sentAt: at(-100), receivedAt: at(100) };
  const codes = (judged: ReturnType<typeof judgeJoinInfo>) => Object.values(judged).map((check) => [check.name, check.ok, check.code]);

  const cases: [string, Partial<JoinInfo>, Partial<JoinExpectations>, [string, boolean, string | undefined][]][] = [
    ["all agree", {}, {}, [["cluster", true, undefined], ["release", true, undefined], ["clock", true, undefined]]],
    ["no cluster name in the draft", { cluster: "anything" }, { clusterName: undefined }, [["cluster", true, undefined], ["release", true, undefined], ["clock", true, undefined]]],
    ["another cluster", { cluster: "lab-2" }, {}, [["cluster", false, "JOIN_CLUSTER_MISMATCH"], ["release", true, undefined], ["clock", true, undefined]]],
    ["another release", { release: "2026.12.0" }, {}, [["cluster", true, undefined], ["release", false, "JOIN_RELEASE_MISMATCH"], ["clock", true, undefined]]],
    ["30 s ahead of the answer's arrival", { time: at(30_100) }, {}, [["cluster", true, undefined], ["release", true, undefined], ["clock", true, undefined]]],
    ["30.1 s ahead", { time: at(30_201) }, {}, [["cluster", true, undefined], ["release", true, undefined], ["clock", false, "JOIN_CLOCK_SKEW"]]],
    ["30 s behind the request's sending", { time: at(-30_100) }, {}, [["cluster", true, undefined], ["release", true, undefined], ["clock", true, undefined]]],
    ["31 s behind", { time: at(-31_100) }, {}, [["cluster", true, undefined], ["release", true, undefined], ["clock", false, "JOIN_CLOCK_SKEW"]]],
    ["a 50 s round trip is no skew", { time: at(25_000) }, { sentAt: at(-50_000), receivedAt: at(0) }, [["cluster", true, undefined], ["release", true, undefined], ["clock", true, undefined]]],
    ["all three wrong", { cluster: "x", release: "y", time: at(3_600_000) }, {}, [["cluster", false, "JOIN_CLUSTER_MISMATCH"], ["release", false, "JOIN_RELEASE_MISMATCH"], ["clock", false, "JOIN_CLOCK_SKEW"]]],
  ];
  for (const [name, infoChange, expectChange, expected] of cases) {
    test(name, () => assert.deepEqual(codes(judgeJoinInfo({ ...info, ...infoChange }, { ...expect, ...expectChange })), expected));
  }

  test("each failure's detail says what differs and what to do", () => {
    const judged = judgeJoinInfo({ cluster: "lab-2", release: "2026.12.0", time: at(-45_100) }, expect);
    assert.equal(
      judged.cluster.detail,
      'the join address belongs to cluster "lab-2", the draft\'s cluster name is "lab-1": correct the cluster name, or the join address and token if this is the wrong cluster',
    );
    assert.equal(
      judged.release.detail,
      'the cluster runs release "2026.12.0", this node\'s payload is release "2026.11.0": load the payload of release "2026.12.0" on this node (or bring the cluster to "2026.11.0"), then retry',
    );
    assert.equal(
      judged.clock.detail,
      "the cluster's clock is 45 s behind this node's (at most 30 s allowed): point both at the same NTP servers (network.ntp) or set this node's clock, then retry",
    );
  });

  test("a cluster's or release's text is quoted visibly: a control, a bidi override or a line separator in it is written out, never obeyed", () => {
    const judged = judgeJoinInfo({ cluster: "lab\u202e2-bal\u001b[2J", release: "r\u009b1\u2028", time: at(0) }, { ...expect, clusterName: "lab-1", release: "r" });
    assert.equal(
      judged.cluster.detail,
      'the join address belongs to cluster "lab\\u202e2-bal\\u001b[2J", the draft\'s cluster name is "lab-1": correct the cluster name, or the join address and token if this is the wrong cluster',
    );
    assert.match(judged.release.detail, /^the cluster runs release "r\\u009b1\\u2028", /);
    const named = judgeJoinInfo({ cluster: "lab\u202e1", release: "r", time: at(0) }, { ...expect, clusterName: undefined, release: "r" });
    assert.equal(named.cluster.detail, 'the cluster is "lab\\u202e1" (the draft names none, so any is accepted)');
  });

  test("a node with no payload loaded is told to load the cluster's release, not that its release is \"\"", () => {
    const judged = judgeJoinInfo(info, { ...expect, release: undefined });
    assert.deepEqual(judged.release, {
      name: "release",
      ok: false,
      code: "JOIN_RELEASE_MISMATCH",
      detail: 'the cluster runs release "2026.11.0", this node has no payload loaded: load the payload of release "2026.11.0" on this node, then retry',
    });
  });
});
