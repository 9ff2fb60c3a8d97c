import { printable, printableJsonText } from "../core/common/printable.ts";
import { shownField } from "../core/config/messages.ts";
import type { FieldError } from "../core/state/records.ts";

export const FORMATS = ["text", "json", "github"] as const;
export type Format = (typeof FORMATS)[number];

/** The validator's messages open with their field's path; beside a `field:` column that says it twice. */
function messageWithoutField({ field, message }: Pick<FieldError, "field" | "message">): string {
  if (!field || !message.startsWith(field)) return message;
  const rest = message.slice(field.length);
  if (rest.startsWith(": ")) return rest.slice(2);
  if (rest.startsWith(" ")) return rest.slice(1);
  return message;
}

/** One line a terminal shows, never obeys: a key or a file name from the file checked may hold escape sequences. */
function described(error: FieldError): string {
  return printable(`${error.field ? shownField(error.field) : "(config)"}: ${messageWithoutField(error)}${error.hint ? ` (${error.hint})` : ""}`);
}

/** GitHub's workflow command escaping: data keeps `:` and `,`, a property value may not. */
const escapeData = (text: string) => text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
const escapeProperty = (text: string) => escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");

function summary(file: string, errors: readonly FieldError[]): string {
  return errors.length === 0 ? `${file}: valid\n` : `${file}: ${errors.length} problem${errors.length === 1 ? "" : "s"}\n`;
}

/**
 * text: `FILE:LINE:COL: error: field: message` a problem, as compilers print them (editors and
 * CI jump to the place); github: workflow commands that annotate the file; json: the field
 * errors as the API returns them (a field's path cut as the draft service cuts it).
 */
export function formatProblems(path: string, errors: readonly FieldError[], format: Format): string {
  const file = printable(path);
  switch (format) {
    case "json":
      return `${printableJsonText(JSON.stringify({ file: path, valid: errors.length === 0, errors: errors.map((e) => ({ ...e, field: shownField(e.field) })) }, null, 2))}\n`;
    case "github":
      return (
        errors.map((e) => `::error file=${escapeProperty(file)},line=${e.line ?? 1},col=${e.column ?? 1}::${escapeData(described(e))}\n`).join("") + summary(file, errors)
      );
    case "text":
      return errors.map((e) => `${file}:${e.line ?? 1}:${e.column ?? 1}: error: ${described(e)}\n`).join("") + summary(file, errors);
  }
}
