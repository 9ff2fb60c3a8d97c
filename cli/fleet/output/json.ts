import { formatPath } from "../../../core/config/paths.ts";
import { printableJson } from "../../../core/common/printable.ts";
import type { FleetOutput } from "./types.ts";

/** JSON Lines (--json): every line one object with a `node` field, null for the fleet itself. */
export function jsonOutput(stdout: NodeJS.WritableStream): FleetOutput {
  const write = (line: object) => stdout.write(`${printableJson({ time: new Date().toISOString(), ...line })}\n`);
  return {
    problems: (file, problems, closing) => {
      for (const p of problems) write({ node: null, type: "fleet.problem", file, line: p.line, column: p.column, path: formatPath(p.path), rule: p.rule, message: p.message, ...(p.hint ? { hint: p.hint } : {}) });
      write({ node: null, type: "fleet.note", level: "error", message: closing });
    },
    nodes: (rows) => rows.forEach((row) => write({ type: "fleet.node", ...row })),
    note: (node, level, message) => write({ node, type: "fleet.note", level, message }),
    change: (node, change) => write({ node, type: "fleet.change", ...change }),
    event: (node, event) => write({ node, ...event }),
    summary: (rows, exit, closing) => {
      rows.forEach(({ node, ...row }) => write({ node, type: "fleet.outcome", ...row }));
      write({ node: null, type: "fleet.end", exit, message: closing });
    },
    close: () => undefined,
  };
}
