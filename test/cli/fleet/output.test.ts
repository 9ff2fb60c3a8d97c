import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../helpers/installer.ts";
import { columnsOf } from "../../helpers/terminal.ts";
import { jsonOutput } from "../../../cli/fleet/output/json.ts";
import { linesOutput } from "../../../cli/fleet/output/lines.ts";
import { liveOutput } from "../../../cli/fleet/output/live.ts";
import { formatTable } from "../../../cli/fleet/output/text-table.ts";

function sink(columns = 100) {
  const written: string[] = [];
  return { written, stream: { isTTY: true, columns, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream };
}

const EVENT = { seq: 7, attempt: 1, time: "2026-01-01T00:00:00.000Z", type: "step.log", step: "firstboot", level: "info", message: "firstboot: starting services" } as const;
const ROLES = new Map([["node-01", "init"], ["node-02", "join"]]);

describe("fleet output", () => {
  it("on a terminal: a summary line, then a row per working or failed node, redrawn in place (cursor up over the last table, clear down), lines cut to the width", async () => {
    const out = sink(60);
    const live = liveOutput(out.stream, sink().stream, ROLES);
    live.change("node-01", { phase: "installing", attempt: 1, since: Date.now() });
    live.event("node-01", EVENT);
    assert.equal(out.written.length, 0, "a change is not drawn at once");
    await waitFor("the first draw", async () => out.written.length || undefined);
    const first = out.written[0]!;
    assert.ok(first.startsWith("\r\x1b[J"), "nothing to go up over yet");
    const rows = first.slice(4).trimEnd().split("\n");
    assert.equal(rows.length, 3);
    assert.match(rows[0]!, /^2 nodes: 1 installing, 1 waiting; \d+s; slowest node-01/, "the summary line");
    assert.match(rows[1]!, /^NODE +ROLE +PHASE +STEP +ELAPSED +LAST LINE/);
    assert.match(rows[2]!, /^node-01 +init +installing +firstboot +\d+s +firstboot: f$/, "both changes in the one draw; the waiting node folds into the count");
    assert.ok(rows.every((row) => row.length <= 59), "no line wraps");

    live.note(null, "info", "node-01 founded cluster lab-1");
    assert.match(out.written.at(-1)!, /^\x1b\[3A\r\x1b\[Jnode-01 founded cluster lab-1\n2 nodes/, "a fleet line goes above the table, which is drawn again below it");
    live.summary([{ node: "node-01", role: "init", outcome: "installed", attempt: 1, elapsedSeconds: 62, detail: "installed" }], 0, "1 of 2 nodes installed");
    assert.match(out.written.at(-1)!, /node-01 +init +installed +1 +1m02s +installed\n1 of 2 nodes installed\n$/);
    live.close();
  });

  it("on a terminal: a node's warning or error is a line above the table, kept, whatever its row shows (a waiting or finished node's has none); its info only its row's last line", () => {
    const out = sink(100);
    const live = liveOutput(out.stream, sink().stream, ROLES);
    live.nodes([]);
    live.note("node-02", "error", "refused: 127.0.0.1:9452 presented a certificate whose SHA-256 is AB…, not the plan's CD…");
    assert.match(out.written.join(""), /^\[node-02\] error: refused: 127\.0\.0\.1:9452 presented a certificate/m);
    live.change("node-01", { phase: "done" });
    live.note("node-01", "warn", "its report of attempt 1 cannot be read (timeout): counted installed as its attempt.finished event said attempt 1 succeeded, unconfirmed");
    live.note("node-01", "info", "draft written (hyperconverged-init)");
    const shown = out.written.join("");
    assert.match(shown, /^\[node-01\] warning: its report of attempt 1 cannot be read/m);
    assert.doesNotMatch(shown, /draft written/, "an info note is not a line of its own");
    live.close();
  });

  it("on a terminal with 50 nodes: finished and waiting nodes fold into the summary line, failed and working ones shown, the table no taller than the terminal", () => {
    const out = sink(120);
    Object.assign(out.stream, { rows: 20 });
    const nodes = Array.from({ length: 50 }, (_, i) => `node-${String(i + 1).padStart(2, "0")}`);
    const live = liveOutput(out.stream, sink().stream, new Map(nodes.map((n, i) => [n, i === 0 ? "init" : "join"])));
    const draw = () => {
      live.close(); // draws what changed, at once: no timer to wait for
      return out.written.at(-1)!.replace(/^(\x1b\[\d+A)?\r\x1b\[J/, "").trimEnd().split("\n");
    };
    nodes.forEach((node, i) => {
      live.change(node, { phase: "installing", attempt: 1, step: "", since: Date.now() });
      for (const step of ["preflight", "write-config", "firstboot"] as const) live.event(node, { ...EVENT, step, message: `${step} line` });
      if (i < 30) live.change(node, { phase: "done" });
      else if (i === 30) live.change(node, { phase: "failed" });
    });
    let rows = draw();
    assert.match(rows[0]!, /^50 nodes: 30 done, 1 failed, 19 installing; \d+s; slowest node-\d\d/);
    assert.ok(rows.length <= 19, `bounded by the terminal's 20 rows: ${rows.length}`);
    assert.match(rows[2]!, /^node-31 +join +failed/);
    assert.ok(rows.every((row) => !/^node-(0\d|1\d|2\d|30) /.test(row)), "no finished node has a row");
    assert.match(rows.at(-1)!, /^… and \d+ more$/);
    for (const node of nodes.slice(31)) live.change(node, { phase: "done" });
    rows = draw();
    assert.deepEqual(rows.slice(1).map((row) => row.split(/ +/)[0]), ["NODE", "node-31"], "only the failed node is left");
    assert.match(rows[0]!, /^50 nodes: 49 done, 1 failed;/);
  });

  it("on a terminal: a node's wide characters (CJK, emoji) are cut by the columns they take, so no row wraps and the redraw goes up over exactly what it drew", () => {
    const out = sink(90);
    const live = liveOutput(out.stream, sink().stream, ROLES);
    live.change("node-01", { phase: "installing", attempt: 1, since: Date.now() });
    live.event("node-01", { ...EVENT, message: `镜像拉取 3/12 🚀 ${"镜".repeat(80)}` });
    live.close();
    live.change("node-02", { phase: "installing", attempt: 1, since: Date.now() });
    live.event("node-02", { ...EVENT, message: "e\u0301\u0301 combining marks take no column" });
    live.close();
    const rows = out.written.at(-1)!.replace(/^(\x1b\[\d+A)?\r\x1b\[J/, "").trimEnd().split("\n");
    assert.equal(rows.length, 4);
    assert.match(rows[2]!, /^node-01 .* 镜像拉取 3\/12 🚀 镜+$/, "cut by columns, never inside a character");
    assert.ok(rows.every((row) => columnsOf(row) <= 89), rows.map((row) => `${columnsOf(row)}: ${row}`).join("\n"));
    assert.ok(out.written.at(-1)!.startsWith("\x1b[3A\r\x1b[J"), "up over the three lines the first draw took");
    live.summary([], 0, "");
  });

  it("on a terminal narrowed between two draws: the redraw goes up over the lines the last draw now takes as the terminal rewraps them", () => {
    const out = sink(100);
    const live = liveOutput(out.stream, sink().stream, ROLES);
    live.change("node-01", { phase: "installing", attempt: 1, since: Date.now() });
    live.event("node-01", { ...EVENT, message: "x".repeat(200) });
    live.close();
    const drawn = out.written.at(-1)!.replace(/^\r\x1b\[J/, "").trimEnd().split("\n");
    assert.equal(drawn.length, 3);
    Object.assign(out.stream, { columns: 40 });
    live.event("node-01", { ...EVENT, message: "y".repeat(200) });
    live.close();
    const rewrapped = drawn.reduce((sum, line) => sum + Math.max(1, Math.ceil(columnsOf(line) / 40)), 0);
    assert.ok(rewrapped > 3);
    assert.ok(out.written.at(-1)!.startsWith(`\x1b[${rewrapped}A\r\x1b[J`), JSON.stringify(out.written.at(-1)!.slice(0, 12)));
    assert.ok(out.written.at(-1)!.trimEnd().split("\n").every((row) => columnsOf(row.replace(/^\x1b\[\d+A\r\x1b\[J/, "")) <= 39), "the new draw fits the new width");
    live.summary([], 0, "");
  });

  it("on a terminal narrower than twenty columns: still no line wraps", () => {
    const out = sink(12);
    const live = liveOutput(out.stream, sink().stream, ROLES);
    live.change("node-01", { phase: "installing", attempt: 1, since: Date.now() });
    live.close();
    const rows = out.written.at(-1)!.replace(/^\r\x1b\[J/, "").trimEnd().split("\n");
    assert.ok(rows.every((row) => row.length <= 11), rows.join("\n"));
    live.summary([], 0, "");
  });

  it("on a terminal: a burst of changes is one draw a quarter second later, and the next burst waits for the next quarter", (t) => {
    t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
    const out = sink(120);
    const nodes = Array.from({ length: 50 }, (_, i) => `node-${String(i + 1).padStart(2, "0")}`);
    const live = liveOutput(out.stream, sink().stream, new Map(nodes.map((n) => [n, "join"])));
    const burst = (tick: number) => {
      for (const node of nodes) {
        live.change(node, { phase: "installing", attempt: 1, since: Date.now() });
        live.event(node, { ...EVENT, message: `line ${tick}` });
      }
    };
    burst(0);
    t.mock.timers.tick(249);
    assert.equal(out.written.length, 0, "nothing drawn within the quarter");
    t.mock.timers.tick(1);
    assert.equal(out.written.length, 1, "one draw for the hundred changes");
    burst(1);
    burst(2);
    t.mock.timers.tick(249);
    assert.equal(out.written.length, 1);
    t.mock.timers.tick(1);
    assert.equal(out.written.length, 2);
    assert.match(out.written[1]!, /line 2/, "the draw shows the last of the burst");
    t.mock.timers.tick(1000);
    assert.equal(out.written.length, 3, "with nothing new, one draw a second (the clock)");
    live.summary([], 0, "");
  });

  it("on a terminal: the summary line names the node that has run longest, a finished one by the time it took", () => {
    const out = sink(120);
    const live = liveOutput(out.stream, sink().stream, new Map([["node-01", "init"], ["node-02", "join"], ["node-03", "join"]]));
    const now = Date.now();
    live.change("node-01", { phase: "installing", attempt: 1, since: now - 5_000 });
    live.change("node-02", { phase: "installing", attempt: 1, since: now - 1_000_000 });
    live.change("node-02", { phase: "done" });
    live.change("node-03", { phase: "installing", attempt: 1, since: now - 60_000 });
    live.close();
    assert.match(out.written.at(-1)!, /; slowest node-02 \(16m4\ds\)\n/);
  });

  it("prefixed lines: one line per change of a node's phase or step, per failure and per note; never per progress tick, for 50 nodes", () => {
    const out = sink();
    const lines = linesOutput(out.stream, sink().stream);
    const nodes = Array.from({ length: 50 }, (_, i) => `node-${String(i + 1).padStart(2, "0")}`);
    const steps = ["preflight", "write-config", "firstboot", "readiness"] as const;
    const expected: string[] = [];
    for (const node of nodes) {
      lines.change(node, { phase: "installing", attempt: 1, step: "", since: 1 });
      lines.change(node, { phase: "installing", attempt: 1, step: "" });
      expected.push(`[${node}] phase: installing (attempt 1)`);
      for (const step of steps) {
        lines.event(node, { ...EVENT, type: "step.started", step, message: `${step} started` });
        for (let tick = 0; tick < 20; tick++) {
          lines.event(node, { ...EVENT, step, message: `line ${tick}` });
          lines.event(node, { ...EVENT, type: "step.progress", level: tick % 2 ? "warn" : "info", step, message: `join check ${tick}: ok` });
          lines.event(node, { ...EVENT, type: "readiness.poll", level: "warn", step, message: "UNREACHABLE" });
        }
        lines.event(node, { ...EVENT, type: "step.finished", step, message: `${step} succeeded` });
        expected.push(`[${node}] step: ${step}`);
      }
      const failed = node === "node-13";
      if (failed) {
        lines.event(node, { ...EVENT, type: "step.finished", level: "error", step: "readiness", message: "readiness failed: not READY" });
        expected.push(`[${node}] readiness: error: readiness failed: not READY`);
      }
      lines.change(node, { phase: failed ? "failed" : "done" });
      lines.change(node, { phase: failed ? "failed" : "done" });
      expected.push(`[${node}] phase: ${failed ? "failed" : "done"}`);
    }
    lines.note("node-02", "error", "attempt 1 failed");
    lines.note(null, "info", "dry run");
    expected.push("[node-02] error: attempt 1 failed", "[fleet] dry run");
    assert.deepEqual(out.written.join("").trimEnd().split("\n"), expected);
  });

  it("a node's text with escape sequences (title, clear screen, cursor report, colour) is shown, never obeyed: in prefixed lines, the live table and the summary", () => {
    const HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[6n\x1b[31mred\u009b2J";
    const SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\x1b[6n\\x1b[31mred\\x9b2J";
    const hostile = { ...EVENT, message: HOSTILE };
    const summary = [{ node: "node-01", role: "init", outcome: "failed", attempt: 1, elapsedSeconds: 3, detail: HOSTILE }];
    const connect = [{ node: "node-01", role: "init", installer: "ok", phase: HOSTILE, attempt: 0, release: HOSTILE, blockers: [HOSTILE], draft: "-" }];

    const out = sink();
    const lines = linesOutput(out.stream, out.stream);
    lines.nodes(connect);
    lines.event("node-01", hostile);
    lines.note("node-01", "error", HOSTILE);
    lines.summary(summary, 1, "0 of 1 nodes installed");
    const live = sink(400);
    const table = liveOutput(live.stream, live.stream, ROLES);
    table.nodes(connect);
    table.event("node-01", hostile);
    table.note("node-01", "warn", HOSTILE);
    table.summary(summary, 1, "0 of 1 nodes installed");
    table.close();
    for (const written of [out.written.join(""), live.written.join("")]) {
      assert.ok(written.includes(SHOWN), written);
      const ownMovesAside = written.replace(/\x1b\[\d+A|\r\x1b\[J/g, "");
      assert.deepEqual(ownMovesAside.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/g), null, "no control character but the live table's own cursor moves and newlines");
    }
  });

  it("a table's columns line up by the columns their cells take on a terminal, wide characters too", () => {
    const lines = formatTable(["NODE", "DETAIL", "ATTEMPT"], [["node-01", "镜像拉取失败", "1"], ["node-02", "image pull failed", "2"]]);
    const at = lines.slice(1).map((line) => columnsOf(line.slice(0, line.search(/ \d$/) + 1)));
    assert.equal(new Set(at).size, 1, lines.join("\n"));
  });

  it("JSON Lines with 50 nodes: one object a line, written whole with each call, every event and change of every node and the end, a node's hostile text escaped", () => {
    const out = sink();
    const json = jsonOutput(out.stream);
    const nodes = Array.from({ length: 50 }, (_, i) => `node-${String(i + 1).padStart(2, "0")}`);
    for (const node of nodes) {
      json.change(node, { phase: "installing", attempt: 1 });
      for (let tick = 0; tick < 20; tick++) json.event(node, { ...EVENT, seq: tick, message: `line ${tick}\n\x1b[2J\u2028` });
      json.change(node, { phase: "done" });
    }
    json.summary(nodes.map((node) => ({ node, role: "join", outcome: "installed", attempt: 1, elapsedSeconds: 3, detail: "installed" })), 0, "50 of 50 nodes installed");
    assert.equal(out.written.length, 50 * 22 + 50 + 1, "one write a line");
    assert.ok(out.written.every((chunk) => /^[^\n]*\n$/.test(chunk) && !/[\u0000-\u001f\u2028]/.test(chunk.slice(0, -1))), "each write one whole line, nothing a terminal obeys");
    const lines = out.written.map((chunk) => JSON.parse(chunk));
    for (const node of nodes) {
      const own = lines.filter((line) => line.node === node);
      assert.deepEqual(own.map((line) => line.type), ["fleet.change", ...Array(20).fill("step.log"), "fleet.change", "fleet.outcome"], node);
      assert.equal(own[1].message, "line 0\n\x1b[2J\u2028", "the value as the node sent it, once parsed");
    }
    assert.deepEqual(lines.at(-1), { time: lines.at(-1).time, node: null, type: "fleet.end", exit: 0, message: "50 of 50 nodes installed" });
  });

  it("JSON Lines: the event with its node; the fleet's own lines with node null", () => {
    const out = sink();
    const json = jsonOutput(out.stream);
    json.event("node-01", EVENT);
    json.note(null, "warn", "stopped watching");
    const [event, note] = out.written.map((line) => JSON.parse(line));
    assert.deepEqual(event, { node: "node-01", ...EVENT });
    assert.deepEqual(note, { time: note.time, node: null, type: "fleet.note", level: "warn", message: "stopped watching" });
  });

  it("JSON Lines: a plan's problem with its place and the rule that found it; the human line names no rule", () => {
    const out = sink();
    const problem = { rule: "address-unique", path: ["nodes", 2, "config", "network", "address"], message: "10.20.0.12/24 is also nodes[1] (node-02)'s address", line: 26, column: 52 } as const;
    jsonOutput(out.stream).problems("plan.yaml", [problem], "plan.yaml: 1 problem; no node was contacted");
    const [line] = out.written.map((l) => JSON.parse(l));
    assert.deepEqual(line, { time: line.time, node: null, type: "fleet.problem", file: "plan.yaml", line: 26, column: 52, path: "nodes[2].config.network.address", rule: "address-unique", message: problem.message });
    const lines = sink();
    linesOutput(lines.stream, lines.stream).problems("plan.yaml", [problem], "done");
    assert.equal(lines.written.join(""), "plan.yaml:26:52 nodes[2].config.network.address: 10.20.0.12/24 is also nodes[1] (node-02)'s address\ndone\n");
  });
});
