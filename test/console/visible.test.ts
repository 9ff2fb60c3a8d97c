import assert from "node:assert/strict";
import { test } from "node:test";
import { visible } from "../../console/visible.ts";

test("the console shows a node's text visible, never obeyed: bidi controls and invisible characters written out; tab, newline, ZWJ and the rest kept", () => {
  const rows: [string, string][] = [
    ["last state BOOTSTRAPPING (\u202eevil) Fix what is not ready", "last state BOOTSTRAPPING (\\u202eevil) Fix what is not ready"],
    ["\u2066iso\u2069 \u200eLRM \u061cALM", "\\u2066iso\\u2069 \\u200eLRM \\u061cALM"],
    ["hid\u200bden\u2060 \ufeffBOM", "hid\\u200bden\\u2060 \\ufeffBOM"],
    ["\u009b2J \x1b[31m \x00 \u2028", "\\u009b2J \\u001b[31m \\u0000 \\u2028"],
    ["line one\n\tline two", "line one\n\tline two"],
    ["é 雪 👩\u200d💻 \u200c", "é 雪 👩\u200d💻 \u200c"],
  ];
  for (const [sent, shown] of rows) assert.equal(visible(sent), shown, JSON.stringify(sent));
});
