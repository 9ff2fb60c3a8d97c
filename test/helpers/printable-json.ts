import assert from "node:assert/strict";

/** What a terminal may obey or reorder, raw: DEL and C1 (0x9b is a CSI to some terminals), U+2028/9, the bidi controls. */
export const RAW = /[\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Text an operator or a node.yaml may bring: a right-to-left override, the isolates, LRM and RLM, NEL and an 8-bit CSI, U+2028/9. */
export const UNPRINTABLE = "a\u202eb\u2066c\u2067d\u2068e\u2069f\u200eg\u200fh\u0085i\u009bj\u2028k\u2029l";

/** Each of UNPRINTABLE's controls as JSON writes it out (`\u202e`). */
const WRITTEN = [...UNPRINTABLE].filter((c) => RAW.test(c)).map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * `text` (an answer's JSON) as a terminal shows it, never obeys: none of those characters raw, each of UNPRINTABLE's
 * written out when `carries` says it holds UNPRINTABLE; returns what it parses to, for the test to compare.
 */
export function assertPrintableJson(text: string, { carries = true }: { carries?: boolean } = {}): any {
  assert.doesNotMatch(text, RAW, text.slice(0, 300));
  if (carries) for (const written of WRITTEN) assert.ok(text.includes(written), `${written} in ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** `text` as a YAML double-quoted scalar with every character beyond ASCII written `\uXXXX` (YAML refuses C1 raw). */
export const yamlQuoted = (text: string): string => JSON.stringify(text).replace(/[^ -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
