import { jsonOutput } from "./json.ts";
import { linesOutput } from "./lines.ts";
import { liveOutput } from "./live.ts";
import type { FleetOutput } from "./types.ts";

export type { ConnectRow, FleetOutput, Level, NodeChange, SummaryRow } from "./types.ts";

/** JSON Lines with --json; a live table when stdout is a terminal; prefixed lines otherwise. */
export function chooseOutput(json: boolean, roles: ReadonlyMap<string, string>): FleetOutput {
  if (json) return jsonOutput(process.stdout);
  return process.stdout.isTTY ? liveOutput(process.stdout, process.stderr, roles) : linesOutput(process.stdout, process.stderr);
}
