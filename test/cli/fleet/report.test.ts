import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reportText } from "../../../cli/fleet/report.ts";

const TOKEN = "STRATUM1:5a5a:join-secret";
const codeOf = (node: string) => `code-of-${node}`;

/** A report of `count` nodes, each answering with its own code, the join token and some 2 KB of firstboot lines. */
function document(count: number, cluster = "rack-1") {
  const nodes = Array.from({ length: count }, (_, i) => {
    const name = `node-${String(i + 1).padStart(4, "0")}`;
    const tail = Array.from({ length: 30 }, (_, k) => `firstboot: stage ${k} of node ${name} went well`);
    return { name, role: "join", installer: "https://127.0.0.1:9443", outcome: null, verdict: { message: `installed with ${codeOf(name)}` }, report: { token: TOKEN, firstbootTail: tail } };
  });
  return { plan: "plan.yaml", planHash: "h", cluster, writtenAt: new Date(0).toISOString(), exit: 0, nodes };
}


describe("fleet: the report", () => {
  it("each node's entry is redacted of the join token and its install code; the rest of every code", () => {
    const text = reportText(document(3, codeOf("node-0002")), [TOKEN], codeOf);
    assert.ok(!text.includes("code-of-") && !text.includes(TOKEN), text);
    const parsed = JSON.parse(text);
    assert.equal(parsed.cluster, "[redacted]");
    assert.deepEqual(parsed.nodes[1].verdict, { message: "installed with [redacted]" });
    assert.equal(parsed.nodes[2].report.token, "[redacted]");
  });

  it("a node's text with C1 controls and bidi overrides is written out in the report's JSON, which parses back to it", () => {
    const doc = document(1, "c");
    (doc.nodes[0] as { verdict: unknown }).verdict = { message: "disk \u009b2J \u202ebusy" };
    const text = reportText(doc, [], () => "code");
    assert.doesNotMatch(text, /[\u0080-\u009f\u202e]/);
    assert.match(text, /disk \\u009b2J \\u202ebusy/);
    assert.equal(JSON.parse(text).nodes[0].verdict.message, "disk \u009b2J \u202ebusy");
  });
});
