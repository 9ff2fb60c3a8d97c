import { printable } from "../../../core/common/printable.ts";
import { columns, padColumns } from "./columns.ts";

/** Rows as lines of left-aligned columns, two spaces apart, by the columns each cell takes on a terminal; the last column is not padded. Cells are shown `printable`. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows.map((row) => row.map(printable))];
  const widths = header.map((_, i) => Math.max(...all.map((row) => columns(row[i] ?? ""))));
  return all.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : padColumns(cell, widths[i]!))).join("  ").trimEnd());
}
