import { connectTable, elapsed, eventText, LEVEL_WORD, problemLines, summaryTable } from "./common.ts";
import { printable } from "../../../core/common/printable.ts";
import { clip, columns } from "./columns.ts";
import { formatTable } from "./text-table.ts";
import type { FleetOutput, NodeChange } from "./types.ts";

interface Row extends NodeChange {
  role: string;
  last: string;
  /** When it stopped running: its elapsed time stops there. */
  until?: number;
}

const RUNNING = new Set(["waiting", "installing"]);
/** The rows the table shows; every other node folds into the summary line's counts. */
const SHOWN = new Set(["installing", "failed", "refused", "unreachable"]);

/** At most four draws a second: a person reads, the screen does not flicker. */
const REDRAW_MS = 250;
const UP = (n: number) => (n > 0 ? `\x1b[${n}A` : "");
const CLEAR_DOWN = "\r\x1b[J";

/** On a terminal, redrawn in place: a summary line (nodes per phase, elapsed, the slowest node), then a row for each node working or failed, as many as the terminal has rows for; finished and waiting nodes fold into the counts. */
export function liveOutput(stdout: NodeJS.WriteStream, stderr: NodeJS.WritableStream, roles: ReadonlyMap<string, string>): FleetOutput {
  const rows = new Map<string, Row>([...roles].map(([node, role]) => [node, { role, phase: "waiting", last: "" }]));
  /** The columns each line of the last table took: as many lines to go up over, or more where a narrowed terminal rewrapped them. */
  let drawn: number[] = [];
  const begun = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let ticker: NodeJS.Timeout | undefined;

  const width = () => stdout.columns || 120;
  // One column short of the edge: a line never wraps, whatever its characters' widths.
  const fit = (line: string) => clip(line, Math.max(1, width() - 1));
  const tableLines = () => {
    const now = Date.now();
    const span = (r: Row) => (r.since ? (r.until ?? now) - r.since : -1);
    const counts = new Map<string, number>();
    for (const r of rows.values()) counts.set(r.phase ?? "waiting", (counts.get(r.phase ?? "waiting") ?? 0) + 1);
    const slowest = [...rows].reduce<[string, Row] | undefined>((a, b) => (!a || span(b[1]) > span(a[1]) ? b : a), undefined);
    const summary = `${rows.size} nodes: ${[...counts].map(([phase, n]) => `${n} ${phase}`).join(", ")}; ${elapsed((now - begun) / 1000)}${slowest && span(slowest[1]) >= 0 ? `; slowest ${slowest[0]} (${elapsed(span(slowest[1]) / 1000)})` : ""}`;
    const shown = [...rows].filter(([, r]) => SHOWN.has(r.phase ?? ""));
    const room = Math.max(1, (stdout.rows || 24) - 4);
    const body = shown.slice(0, room).map(([node, r]) => [node, r.role, r.phase ?? "", r.step ?? "", r.since ? elapsed(span(r) / 1000) : "-", r.last]);
    const more = shown.length > room ? [`… and ${shown.length - room} more`] : [];
    return [summary, ...(body.length ? formatTable(["NODE", "ROLE", "PHASE", "STEP", "ELAPSED", "LAST LINE"], body) : []), ...more].map(fit);
  };
  const draw = (above: string[] = []) => {
    clearTimeout(timer);
    timer = undefined;
    const lines = [...above.map(printable), ...tableLines()];
    const up = drawn.reduce((sum, w) => sum + Math.max(1, Math.ceil(w / width())), 0);
    stdout.write(`${UP(up)}${CLEAR_DOWN}${lines.join("\n")}\n`);
    drawn = lines.slice(above.length).map(columns);
  };
  const later = () => {
    timer ??= setTimeout(draw, REDRAW_MS);
    ticker ??= setInterval(draw, 1000).unref();
  };
  const update = (node: string, change: Partial<Row>) => {
    const row = rows.get(node);
    if (row) Object.assign(row, change, change.phase ? { until: RUNNING.has(change.phase) ? undefined : Date.now() } : {});
    later();
  };
  const stop = () => {
    clearTimeout(timer);
    clearInterval(ticker);
    timer = ticker = undefined;
  };
  const print = (lines: string[]) => {
    if (drawn.length > 0) draw(lines);
    else stdout.write(`${lines.map(printable).join("\n")}\n`);
  };

  return {
    problems: (file, problems, closing) => stderr.write(`${problemLines(file, problems, closing).map(printable).join("\n")}\n`),
    nodes: (table) => print(connectTable(table)),
    // A node's warning or error is a line of its own above the table, kept: its row may fold away (waiting, done) or
    // its last line be replaced by the next event. Its info (draft written, attempt started) is only its last line.
    note: (node, level, message) => {
      if (node === null) return print([`${LEVEL_WORD[level]}${message}`]);
      if (level !== "info") print([`[${node}] ${LEVEL_WORD[level]}${message}`]);
      update(node, { last: `${LEVEL_WORD[level]}${message}` });
    },
    change: (node, change) => update(node, change),
    event: (node, event) => update(node, { last: eventText(event).replace(/\s+/g, " "), ...(event.step ? { step: event.step } : {}) }),
    summary: (table, _exit, closing) => {
      draw();
      stop();
      drawn = [];
      stdout.write(`\n${[...summaryTable(table), closing].map(printable).join("\n")}\n`);
    },
    close: () => {
      if (timer || ticker) draw();
      stop();
    },
  };
}
