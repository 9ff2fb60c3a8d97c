import type { InstallEvent } from "../api.ts";
import { formatProblem } from "../plan-yaml.ts";
import type { LocatedProblem } from "../plan-yaml.ts";
import { formatTable } from "./text-table.ts";
import type { ConnectRow, Level, SummaryRow } from "./types.ts";

export const LEVEL_WORD: Record<Level, string> = { info: "", warn: "warning: ", error: "error: " };

export function problemLines(file: string, problems: readonly LocatedProblem[], closing: string): string[] {
  return [...problems.map((p) => formatProblem(file, p)), closing];
}

export function connectTable(rows: readonly ConnectRow[]): string[] {
  return formatTable(
    ["NODE", "ROLE", "INSTALLER", "PHASE", "ATTEMPT", "RELEASE", "BLOCKERS", "DRAFT"],
    rows.map((r) => [r.node, r.role, r.installer, r.phase, String(r.attempt), r.release ?? "none", [...r.blockers, ...(r.moreBlockers ? [`and ${r.moreBlockers} more`] : [])].join(", ") || "none", r.draft]),
  );
}

export function elapsed(seconds: number | null): string {
  if (seconds === null) return "-";
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

export function summaryTable(rows: readonly SummaryRow[]): string[] {
  return formatTable(
    ["NODE", "ROLE", "OUTCOME", "ATTEMPT", "ELAPSED", "DETAIL"],
    rows.map((r) => [r.node, r.role, r.outcome, String(r.attempt || "-"), elapsed(r.elapsedSeconds), r.detail]),
  );
}

export function eventText(event: InstallEvent): string {
  return `${event.step ?? "attempt"}: ${LEVEL_WORD[event.level]}${event.message}`;
}
