import { printable } from "../../printable.ts";
import { connectTable, eventText, LEVEL_WORD, problemLines, summaryTable } from "./common.ts";
import type { FleetOutput } from "./types.ts";

/** Prefixed lines, for logs and pipes: one line per event, `[node] step: message`. */
export function linesOutput(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): FleetOutput {
  const write = (lines: string[]) => stdout.write(`${lines.map(printable).join("\n")}\n`);
  return {
    problems: (file, problems, closing) => stderr.write(`${problemLines(file, problems, closing).map(printable).join("\n")}\n`),
    nodes: (rows) => write(connectTable(rows)),
    note: (node, level, message) => write([`[${node ?? "fleet"}] ${LEVEL_WORD[level]}${message}`]),
    change: () => undefined,
    event: (node, event) => write([`[${node}] ${eventText(event)}`]),
    summary: (rows, _exit, closing) => write(["", ...summaryTable(rows), closing]),
    close: () => undefined,
  };
}
