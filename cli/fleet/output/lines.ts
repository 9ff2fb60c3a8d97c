import { printable } from "../../../core/common/printable.ts";
import { connectTable, eventText, LEVEL_WORD, problemLines, summaryTable } from "./common.ts";
import type { FleetOutput } from "./types.ts";

/**
 * Prefixed lines, for logs and pipes: one line per change of a node's phase (`[node] phase: installing (attempt 1)`)
 * or step (`[node] step: firstboot`), per failure (an event at level error) and per note; never one per progress
 * tick (a step's log lines, readiness polls: those are in `--json` and the support bundle).
 */
export function linesOutput(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): FleetOutput {
  const write = (lines: string[]) => stdout.write(`${lines.map(printable).join("\n")}\n`);
  const shown = new Map<string, { phase?: string; step?: string }>();
  const seen = (node: string) => shown.get(node) ?? shown.set(node, {}).get(node)!;
  const step = (node: string, name: string) => {
    const s = seen(node);
    if (name && s.step !== name) write([`[${node}] step: ${name}`]);
    s.step = name;
  };
  return {
    problems: (file, problems, closing) => stderr.write(`${problemLines(file, problems, closing).map(printable).join("\n")}\n`),
    nodes: (rows) => write(connectTable(rows)),
    note: (node, level, message) => write([`[${node ?? "fleet"}] ${LEVEL_WORD[level]}${message}`]),
    change: (node, change) => {
      const s = seen(node);
      if (change.phase !== undefined && change.phase !== s.phase) {
        write([`[${node}] phase: ${change.phase}${change.phase === "installing" && change.attempt ? ` (attempt ${change.attempt})` : ""}`]);
        s.phase = change.phase;
        s.step = undefined;
      }
      if (change.step) step(node, change.step);
    },
    event: (node, event) => {
      if (event.type === "step.started" && event.step) step(node, event.step);
      else if (event.level === "error") write([`[${node}] ${eventText(event)}`]);
    },
    summary: (rows, _exit, closing) => write(["", ...summaryTable(rows), closing]),
    close: () => undefined,
  };
}
