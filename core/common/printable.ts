/**
 * Text from outside (a node, a firstboot, a cloud) as a terminal may show it: every control character, and so
 * every escape sequence, written out visibly (`\x1b[2J`), never obeyed; line and paragraph separators and the
 * bidirectional controls that reorder what a person reads likewise. The fleet's and `status`'s one way out.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
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
  return UNSAFE_IN_JSON.test(json) ? json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : json;
}

// C0 (tab and newline too: a table cell or a prefixed line is one line), DEL, C1, U+2028/9, every bidi control
// (embeddings, overrides, isolates and the marks LRM, RLM and ALM), and the invisible characters that hide or split
// text without a mark: zero-width space, word joiner, byte order mark (ZWJ and ZWNJ stay: emoji and scripts need them).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b\u2060\ufeff\p{Bidi_Control}]/gu;
// The same less C0: JSON escapes C0 in its strings, and a C0 outside them is whitespace between its tokens.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u200b\u2060\ufeff\p{Bidi_Control}]/gu;
