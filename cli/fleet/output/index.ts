import { capText, jsonNotKept } from "../../../core/common/cut-text.ts";
import type { InstallEvent } from "../api.ts";
import { jsonOutput } from "./json.ts";
import { linesOutput } from "./lines.ts";
import { liveOutput } from "./live.ts";
import type { FleetOutput, SummaryRow } from "./types.ts";

export type { ConnectRow, FleetOutput, Level, NodeChange, SummaryRow } from "./types.ts";

/**
 * JSON Lines with --json; a live table when stdout is a terminal that moves its cursor; prefixed lines otherwise (piped,
 * or TERM=dumb: an editor's shell, a serial console, which would show the redraws' escape sequences as text).
 */
export function chooseOutput(json: boolean, roles: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): FleetOutput {
  if (json) return bounded(jsonOutput(process.stdout));
  const live = process.stdout.isTTY && env.TERM !== "dumb";
  return bounded(live ? liveOutput(process.stdout, process.stderr, roles) : linesOutput(process.stdout, process.stderr));
}

/** The most of one message the fleet shows: as the installer's own readers cut a firstboot's line (SPEC §6). */
export const MESSAGE_BYTES = 16 * 1024;

const cut = (text: string) => capText(text, MESSAGE_BYTES).text;

/** The most of one event's data the fleet shows (--json): an installer's are a few hundred bytes (a verdict, a check). */
export const DATA_BYTES = 64 * 1024;

/** An event's data as the fleet shows it: as it came, or, when it cannot be written as JSON or is over DATA_BYTES, why not. */
function keptData(event: InstallEvent): InstallEvent {
  const why = event.data === undefined ? undefined : jsonNotKept(event.data, DATA_BYTES, "an event");
  return why === undefined ? event : { ...event, data: { omitted: `this event's data is left on the node: ${why}; GET /v1/installer/install/events?attempt=${event.attempt} there has it` } };
}

/** A node's text in a cell of the nodes' table (its release, a blocker's code): a release is a version, a code a word. */
export const CELL_BYTES = 256;
/** The blockers a row names; how many more in `moreBlockers` (--json), "and N more" in the table. */
export const CELL_ITEMS = 10;

export const cell = (text: string) => capText(text, CELL_BYTES).text;

/**
 * `out`, every message kept to MESSAGE_BYTES: a note (a node's verdict, its failure), an event's message, a summary
 * row's detail can carry a node's text, and a node may send megabytes of it; an event's data to DATA_BYTES; a table
 * row's release and blockers to a cell's.
 */
export function bounded(out: FleetOutput): FleetOutput {
  return {
    problems: (file, problems, closing) => out.problems(file, problems.map((p) => ({ ...p, message: cut(p.message), ...(p.hint ? { hint: cut(p.hint) } : {}) })), closing),
    nodes: (rows) =>
      out.nodes(
        rows.map((r) => ({
          ...r,
          release: r.release === null ? null : cell(r.release),
          blockers: r.blockers.slice(0, CELL_ITEMS).map(cell),
          ...(r.blockers.length > CELL_ITEMS ? { moreBlockers: r.blockers.length - CELL_ITEMS } : {}),
        })),
      ),
    note: (node, level, message) => out.note(node, level, cut(message)),
    change: (node, change) => out.change(node, change),
    event: (node, event: InstallEvent) => out.event(node, { ...keptData(event), message: cut(event.message) }),
    summary: (rows: readonly SummaryRow[], exit, closing) => out.summary(rows.map((r) => ({ ...r, detail: cut(r.detail) })), exit, cut(closing)),
    close: () => out.close(),
  };
}
