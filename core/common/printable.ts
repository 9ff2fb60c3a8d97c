/**
 * Text from outside (a node, a firstboot, a cloud) as a terminal may show it: every control character, and so
 * every escape sequence, written out visibly (`\x1b[2J`), never obeyed; line and paragraph separators and the
 * bidirectional controls that reorder what a person reads likewise. The fleet's and `status`'s one way out.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    if (SHAPING.test(c)) return c;
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : written(code);
  });
}

/**
 * Where `text` holds the first character `printable` writes out (a control, a bidi override, an invisible one), as a
 * string index; -1 when it holds none: for a rule that refuses such text (a cluster's name), the same list.
 */
export function unprintableAt(text: string): number {
  for (const match of text.matchAll(UNSAFE)) if (!SHAPING.test(match[0])) return match.index;
  return -1;
}

/** A message of several lines as a terminal may show it: each line printable, the lines kept. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}

/**
 * `value` as one line of JSON that a terminal shows, never obeys: JSON.stringify escapes C0 only, so DEL, C1
 * (0x9b is a CSI to some terminals), the line separators and the bidi overrides are escaped as \uXXXX too;
 * the line parses back to the same value.
 */
export function printableJson(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  return printableJsonText(JSON.stringify(value, replacer));
}

/**
 * JSON text made printable as printableJson makes it: outside its strings JSON has none of these characters, so
 * escaping them anywhere in the text escapes them in its strings, and the text parses to the same value.
 */
export function printableJsonText(json: string): string {
  UNSAFE_IN_JSON.lastIndex = 0;
  // One beyond U+FFFF is written as JSON writes it, as its two UTF-16 halves.
  return UNSAFE_IN_JSON.test(json) ? json.replace(UNSAFE_IN_JSON, (c) => (SHAPING.test(c) ? c : c.split("").map((half) => written(half.charCodeAt(0))).join(""))) : json;
}

/**
 * Text from outside as a page shows it (the console): what `printable` writes out, but tab and newline kept (the
 * page lays text out, it does not obey it), and written `\u202e`. A cloud's or a firstboot's text sits inside the
 * installer's own sentences (a verdict's message): a right-to-left override in it turned the rest of the sentence
 * around.
 */
export function visible(text: string): string {
  return text.replace(HIDDEN_ON_A_PAGE, (c) => (SHAPING.test(c) ? c : written(c.codePointAt(0)!)));
}

/** `\u202e`, or `\u{e0041}` beyond U+FFFF. */
function written(code: number): string {
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
}

// One list, three uses. Beyond C0: DEL, C1 (0x9b is a CSI to some terminals), U+2028/9, every bidi control
// (embeddings, overrides, isolates and the marks LRM, RLM and ALM), and the invisible characters that hide or split
// text without a mark, as Unicode lists them (Default_Ignorable_Code_Point): zero-width space, word joiner, byte
// order mark, soft hyphen, the invisible separator and operators, tags, Hangul fillers … A disk's serial with one
// in it read as its neighbour's.
const BEYOND_C0 = "\\u007f-\\u009f\\u2028\\u2029\\p{Bidi_Control}\\p{Default_Ignorable_Code_Point}";
// Of those, the ones that shape the character before them, and stay: ZWJ and ZWNJ (emoji, scripts), the variation
// selectors (emoji, CJK) and Mongolian's free variation selectors.
const SHAPING = /^[\u200c\u200d\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;
// All of C0 too, tab and newline included: a table cell or a prefixed line is one line.
const UNSAFE = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, "gu");
// Less C0: JSON escapes C0 in its strings, and a C0 outside them is whitespace between its tokens.
const UNSAFE_IN_JSON = new RegExp(`[${BEYOND_C0}]`, "gu");
// Less tab and newline, which a page lays out.
const HIDDEN_ON_A_PAGE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${BEYOND_C0}]`, "gu");
