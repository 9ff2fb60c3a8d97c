import { printable } from "../../printable.ts";

/** Rows as lines of left-aligned columns, two spaces apart; the last column is not padded. Cells are shown `printable`. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows.map((row) => row.map(printable))];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  return all.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd());
}
