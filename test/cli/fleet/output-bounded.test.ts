import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PROBLEM_CAPS, cappedFieldErrors } from "../../../cli/fleet/api.ts";
import { CELL_BYTES, CELL_ITEMS, DATA_BYTES, MESSAGE_BYTES, bounded } from "../../../cli/fleet/output/index.ts";
import { jsonOutput } from "../../../cli/fleet/output/json.ts";
import { connectTable } from "../../../cli/fleet/output/common.ts";
import type { FleetOutput } from "../../../cli/fleet/output/types.ts";

/** A FleetOutput that keeps what it was given, as it was given. */
function recording() {
  const got: Record<string, unknown[][]> = {};
  const keep = (name: string) => (...args: unknown[]) => void (got[name] ??= []).push(args);
  const out = { problems: keep("problems"), nodes: keep("nodes"), note: keep("note"), change: keep("change"), event: keep("event"), summary: keep("summary"), close: keep("close") } as unknown as FleetOutput;
  return { out, got };
}

describe("fleet: what a node says is kept to a size before any output shows it", () => {
  const huge = "L".repeat(900_000);
  const fits = (text: unknown) => Buffer.byteLength(String(text)) <= MESSAGE_BYTES + 40 && /… \[cut [\d.]+ KiB\]$/.test(String(text));

  it("a note (a verdict's message, a failure), an event's message, a summary's detail and closing, a problem's message and hint", () => {
    const { out, got } = recording();
    const b = bounded(out);
    b.note("node-02", "error", `attempt 1 failed: ${huge}`);
    b.event("node-02", { seq: 1, attempt: 1, time: "2026-12-06T00:00:00.000Z", type: "step.log", level: "error", message: huge });
    b.summary([{ node: "node-02", role: "join", outcome: "failed", attempt: 1, elapsedSeconds: 3, detail: huge }], 1, huge);
    b.problems("plan.yaml", [{ rule: "node-validation", path: ["nodes", 1], message: huge, hint: huge, line: 3, column: 5 }] as never, "closing");
    assert.ok(fits(got.note![0]![2]));
    assert.ok(fits((got.event![0]![1] as { message: string }).message));
    assert.ok(fits((got.summary![0]![0] as { detail: string }[])[0]!.detail));
    assert.ok(fits(got.summary![0]![2]));
    const [problem] = got.problems![0]![1] as { message: string; hint: string }[];
    assert.ok(fits(problem!.message) && fits(problem!.hint));
  });

  it("a node's table row: a release of megabytes is cut, and of 100,000 blockers the first few are shown with how many more", () => {
    const { out, got } = recording();
    const blockers = Array.from({ length: 100_000 }, (_, i) => `BLOCKER_${i}`);
    bounded(out).nodes([{ node: "node-02", role: "join", installer: "https://10.20.0.12:9443", phase: "configuring", attempt: 0, release: "r".repeat(5_000_000), blockers, draft: "valid" }]);
    const [row] = got.nodes![0]![0] as Array<{ release: string; blockers: string[]; moreBlockers: number }>;
    assert.ok(Buffer.byteLength(row!.release) <= CELL_BYTES + 40 && /… \[cut [\d.]+ [KM]iB\]$/.test(row!.release), row!.release.slice(-60));
    // Codes only in the list (--json readers take each for one); how many more beside it, which the table says.
    assert.deepEqual(row!.blockers, blockers.slice(0, CELL_ITEMS));
    assert.equal(row!.moreBlockers, 100_000 - CELL_ITEMS);
    assert.match(connectTable([row as never]).join("\n"), new RegExp(`BLOCKER_9, and ${100_000 - CELL_ITEMS} more`));
  });

  it("an event's data nested deeper than JSON can be written, or over DATA_BYTES, is left on the node, saying so; --json still writes the event", () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 20_000; i++) deep = (deep.a = {}) as Record<string, unknown>;
    const event = { seq: 7, attempt: 1, time: "2026-12-06T00:00:00.000Z", type: "step.progress", level: "info", message: "deep" } as const;
    const { out, got } = recording();
    const b = bounded(out);
    b.event("node-02", { ...event, data: root });
    b.event("node-02", { ...event, data: { blob: "x".repeat(DATA_BYTES) } });
    b.event("node-02", { ...event, data: { check: "cloud-api", ok: true } });
    const [deepData, bigData, usual] = got.event!.map((args) => (args[1] as { data: unknown }).data);
    assert.deepEqual(Object.keys(deepData as object), ["omitted"]);
    assert.match((deepData as { omitted: string }).omitted, /^this event's data is left on the node: it cannot be written as JSON \(.+\); GET \/v1\/installer\/install\/events\?attempt=1 there has it$/);
    assert.match((bigData as { omitted: string }).omitted, /^this event's data is left on the node: it is [\d.]+ KiB, over the 64 KiB kept an event; /);
    assert.deepEqual(usual, { check: "cloud-api", ok: true });
    const lines: string[] = [];
    const json = bounded(jsonOutput({ write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream));
    json.event("node-02", { ...event, data: root });
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]!).seq, 7);
  });

  it("text of a usual size passes as it is", () => {
    const { out, got } = recording();
    bounded(out).note("node-01", "info", "attempt 1 succeeded: installed");
    assert.deepEqual(got.note, [["node-01", "info", "attempt 1 succeeded: installed"]]);
  });

  it("a node's field errors: at most PROBLEM_CAPS.items, each capped, one more saying how many were left out", () => {
    const errors = Array.from({ length: 20_000 }, (_, i) => ({ field: `network.dns[${i}]`, message: `bad ${i} ${"x".repeat(2000)}` }));
    const kept = cappedFieldErrors(errors);
    assert.equal(kept.length, PROBLEM_CAPS.items + 1);
    assert.ok(kept.slice(0, -1).every((e) => Buffer.byteLength(e.message) <= PROBLEM_CAPS.itemBytes + 40));
    assert.deepEqual(kept.at(-1), { field: "", message: `and ${20_000 - PROBLEM_CAPS.items} more the node found (its POST /v1/installer/config/validate lists them all)` });
    assert.deepEqual(cappedFieldErrors(errors.slice(0, 2).map((e) => ({ ...e, message: "short" }))), errors.slice(0, 2).map((e) => ({ ...e, message: "short" })));
  });
});
