/**
 * Text measured and cut as a terminal shows it, not as `String.length` counts it: East Asian wide characters and
 * emoji take two columns, combining marks and other zero-width characters none (string-width's rules; Node keeps
 * its own measure internal). For text `printable` has made safe: there is no escape sequence left in it to measure.
 */
import stringWidth from "string-width";

const PLAIN = /^[\x20-\x7e]*$/;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The columns `text` takes on a terminal. */
export const columns = (text: string): number => (PLAIN.test(text) ? text.length : stringWidth(text, { countAnsiEscapeCodes: true }));

/** The longest start of `text` that takes at most `width` columns, cut between characters as a person sees them. */
export function clip(text: string, width: number): string {
  if (columns(text) <= width) return text;
  let used = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    used += columns(segment);
    if (used > width) return text.slice(0, index);
  }
  return text;
}

/** `text`, then spaces up to `width` columns. */
export const padColumns = (text: string, width: number): string => text + " ".repeat(Math.max(0, width - columns(text)));
