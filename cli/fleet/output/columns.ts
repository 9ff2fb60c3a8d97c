/**
 * Text measured and cut as a terminal shows it, not as `String.length` counts it. A character takes two columns when
 * Unicode's East Asian Width says wide or fullwidth (get-east-asian-width's data) or when it is a pictograph (an emoji),
 * none when it is a combining mark or an invisible one (ZWJ, variation selectors), one otherwise. Where a terminal
 * may draw a sequence narrower (an emoji with a skin tone or joined to another, a pictograph shown as text), this
 * counts it wider: a line cut by it may end early, never wrap. Character by character, without Intl.Segmenter, whose
 * first use loads ICU's break rules: 18–27 ms of every fleet start (string-width builds one when it is imported).
 * For text `printable` has made safe: there is no escape sequence left in it to measure.
 */
import { eastAsianWidth } from "get-east-asian-width";

const PLAIN = /^[\x20-\x7e]*$/;
const NONE = /[\p{Mark}\p{Default_Ignorable_Code_Point}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const KEYCAP = "\u20e3";

/** The columns one character (one code point) takes; a keycap's enclosing mark makes its digit an emoji of two. */
const charColumns = (c: string): number => (c === KEYCAP ? 1 : NONE.test(c) ? 0 : PICTOGRAPH.test(c) ? 2 : eastAsianWidth(c.codePointAt(0)!));

/** The columns `text` takes on a terminal. */
export function columns(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let sum = 0;
  for (const c of text) sum += charColumns(c);
  return sum;
}

/** The longest start of `text` that takes at most `width` columns, cut between characters. */
export function clip(text: string, width: number): string {
  if (PLAIN.test(text)) return text.slice(0, width);
  let used = 0;
  let end = 0;
  for (const c of text) {
    used += charColumns(c);
    if (used > width) break;
    end += c.length;
  }
  return text.slice(0, end);
}

/** `text`, then spaces up to `width` columns. */
export const padColumns = (text: string, width: number): string => text + " ".repeat(Math.max(0, width - columns(text)));
