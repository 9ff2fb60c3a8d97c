import type { InstallEvent } from "../api.ts";
import type { LocatedProblem } from "../plan-yaml.ts";

export type Level = "info" | "warn" | "error";

/** A node as the fleet found it when it connected. */
export interface ConnectRow {
  node: string;
  role: string;
  installer: string;
  phase: string;
  attempt: number;
  release: string | null;
  blockers: string[];
  /** Blockers the node named past those shown (a table cell holds a few). */
  moreBlockers?: number;
  /** What the node said of its draft, e.g. "valid", "2 problems", "installed". */
  draft: string;
}

/** How a node ended this run. */
export interface SummaryRow {
  node: string;
  role: string;
  outcome: string;
  /** Its latest attempt, 0 when none. */
  attempt: number;
  elapsedSeconds: number | null;
  detail: string;
}

/** What changed about a node while installing. */
export interface NodeChange {
  phase?: string;
  step?: string;
  attempt?: number;
  /** The attempt being followed started (ms since the epoch). */
  since?: number;
}

/** Where the fleet says what it does: prefixed lines, JSON Lines (--json), or a live table on a terminal. */
export interface FleetOutput {
  problems(file: string, problems: readonly LocatedProblem[], closing: string): void;
  nodes(rows: readonly ConnectRow[]): void;
  note(node: string | null, level: Level, message: string): void;
  change(node: string, change: NodeChange): void;
  event(node: string, event: InstallEvent): void;
  summary(rows: readonly SummaryRow[], exit: number, closing: string): void;
  close(): void;
}
