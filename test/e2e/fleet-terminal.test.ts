import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { startRig } from "../helpers/fleet.ts";
import { BUNDLE, ROOT, harness } from "../helpers/installer.ts";
import { columnsOf, runTerminal } from "../helpers/terminal.ts";

const lab = harness();
const COLUMNS = 72;
const ROWS = 15;

/** `fleet PLAN …` on a real terminal (a pty from util-linux's script) of COLUMNS × ROWS: everything it wrote there. */
function fleetOnTerminal(planFile: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const command = `stty cols ${COLUMNS} rows ${ROWS} && exec '${process.execPath}' '${BUNDLE}' fleet '${planFile}' ${args.join(" ")}`;
  const proc = spawn("script", ["--quiet", "--return", "--command", command, "/dev/null"], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
  const timer = setTimeout(() => proc.kill("SIGKILL"), 120_000);
  let output = "";
  proc.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
  return new Promise((resolve) => proc.on("close", (code) => (clearTimeout(timer), resolve({ code, output }))));
}

describe("fleet: the live view on a real terminal (issue 25 item 3)", () => {
  test("72 × 15, firstboot lines of CJK and emoji: redrawn in place, none of its lines wraps, nothing of an earlier draw left behind", async () => {
    const wide = `镜像拉取 🚀 ${"节点".repeat(30)}`;
    // Each firstboot's last line is the wide one for a while: the view draws it (four times a second at most, and
    // every second) until the node is done.
    const rig = await startRig(lab, { joins: 3, firstbootLines: [wide], firstbootSeconds: 2 });
    const run = await fleetOnTerminal(rig.planFile, ["--parallel", "2"], rig.env);
    assert.equal(run.code, 0, run.output);
    const draws = run.output.split("\r\x1b[J").slice(1);
    assert.ok(draws.filter((draw) => draw.includes("镜像拉取 🚀")).length >= 2, `the wide line was drawn, and drawn again:\n${run.output}`);
    const seen = runTerminal(run.output, COLUMNS, ROWS);
    const everything = [...seen.scrolledOff, ...seen.rows];
    const shown = everything.join("\n");
    // The tables printed once (the nodes at the start, the summary at the end) may wrap as any command's output does;
    // a line of the live view must not, or the next draw goes up over too few rows.
    const live = /^(\d+ nodes: |NODE +ROLE +PHASE +STEP|node-\d\d +(init|join) +(installing|failed|refused|unreachable|waiting) )/;
    assert.deepEqual(seen.wrapped.filter((row) => live.test(row)), [], `${JSON.stringify(seen.wrapped.filter((row) => live.test(row)))}\n${shown}`);
    const drawnLines = draws.flatMap((draw) => draw.split(/\r?\n/).map((line) => line.replace(/\x1b\[\d+A/g, ""))).filter((line) => live.test(line));
    assert.ok(drawnLines.every((line) => columnsOf(line) < COLUMNS), `every line the view drew is narrower than the terminal:\n${drawnLines.join("\n")}`);
    // Every draw began with the summary line; a redraw that went up over too few rows would have left the old one.
    assert.equal(everything.filter((line) => /^4 nodes: /.test(line)).length, 1, shown);
    assert.match(everything.find((line) => /^4 nodes: /.test(line))!, /^4 nodes: 4 done; \d+s/, shown);
    assert.equal(everything.filter((line) => /^NODE +ROLE +OUTCOME/.test(line)).length, 1, shown);
    assert.match(seen.rows.join("\n"), /^4 of 4 nodes installed; report: /m, shown);
  });

  test("a node refused at the checks: its reason is on the screen and its row shown refused (before, neither: it stayed a folded 'waiting')", async () => {
    const rig = await startRig(lab, { joins: 1 });
    const [init, join] = rig.nodes;
    // node-02's entry pins node-01's certificate: node-02 presents another.
    const planFile = await rig.writePlan((text) => text.replace(join!.installer.fingerprint.replaceAll(":", "").toLowerCase(), init!.installer.fingerprint));
    const run = await fleetOnTerminal(planFile, ["--dry-run"], rig.env);
    assert.equal(run.code, 2, run.output);
    const shown = runTerminal(run.output, COLUMNS, ROWS);
    const everything = [...shown.scrolledOff, ...shown.rows].join("\n");
    assert.match(everything, /^\[node-02\] error: refused: 127\.0\.0\.1:\d+ presented a certificate/m, everything);
    assert.match(everything, /^2 nodes: 1 waiting, 1 refused; /m, everything);
    assert.match(everything, /^node-02 +join +refused /m, everything);
  });

  test("a terminal that says it moves no cursor (TERM=dumb: an editor's shell, a serial console): prefixed lines, as piped, never an escape sequence", async () => {
    const rig = await startRig(lab, { joins: 1 });
    const run = await fleetOnTerminal(rig.planFile, [], { ...rig.env, TERM: "dumb" });
    assert.equal(run.code, 0, run.output);
    assert.doesNotMatch(run.output, /\x1b/, JSON.stringify(run.output));
    assert.match(run.output, /^\[node-02\] phase: done\r?$/m, run.output);
    assert.match(run.output, /^2 of 2 nodes installed; report: /m, run.output);
  });
});
