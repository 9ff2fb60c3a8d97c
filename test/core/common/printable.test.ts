import assert from "node:assert/strict";
import { test } from "node:test";
import { printable, printableJson, visible } from "../../../core/common/printable.ts";

test("what a node sends reaches the terminal visible, never obeyed", () => {
  const rows: [string, string][] = [
    ["firstboot: done", "firstboot: done"],
    ["\x1b]0;owned\x07title", "\\x1b]0;owned\\x07title"],
    ["\x1b[2J\x1b[6n\x1b[31mred\x1b[0m", "\\x1b[2J\\x1b[6n\\x1b[31mred\\x1b[0m"],
    ["a\rb\nc\td\0e\x7f", "a\\x0db\\x0ac\\x09d\\x00e\\x7f"],
    ["\u009b2J 8-bit CSI", "\\x9b2J 8-bit CSI"],
    ["\u202eevil\u2066\u2028", "\\u202eevil\\u2066\\u2028"],
    ["\u200eLRM \u200fRLM \u061cALM", "\\u200eLRM \\u200fRLM \\u061cALM"],
    ["é ✓ 😀 \\x1b", "é ✓ 😀 \\x1b"],
    ["hid\u200bden\u2060 \ufeffBOM", "hid\\u200bden\\u2060 \\ufeffBOM"],
    ["S6ESNE\u2063T61\u00ad2345\u180e", "S6ESNE\\u2063T61\\xad2345\\u180e"],
    ["eno\u{e0031}1 \u3164 \u034f", "eno\\u{e0031}1 \\u3164 \\u034f"],
    ["👩\u200d💻 and ZWNJ \u200c stay", "👩\u200d💻 and ZWNJ \u200c stay"],
    ["❤\ufe0f 葛\u{e0100}", "❤\ufe0f 葛\u{e0100}"],
  ];
  for (const [sent, shown] of rows) assert.equal(printable(sent), shown, JSON.stringify(sent));
  for (const [sent] of rows) assert.equal(printable(printable(sent)), printable(sent), "shown once, never escaped twice");
});

test("--json lines: every control character escaped (C1 and DEL too, which JSON.stringify leaves raw), the value unchanged", () => {
  const sent = { message: "\x1b]0;owned\x07 \x1b[2J \u009b6n \x7f \u202eevil\u2028 \u200f é 😀 S\u2063N\u00ad1\u{e0031}", n: 1 };
  const line = printableJson(sent);
  assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2063\u00ad\u{e0031}]/u);
  assert.match(line, /\\u009b6n \\u007f \\u202eevil\\u2028 \\u200f é 😀 S\\u2063N\\u00ad1\\udb40\\udc31/);
  assert.deepEqual(JSON.parse(line), sent);
});

test("the console shows a node's text visible, never obeyed: bidi controls and invisible characters written out (soft hyphen, invisible separator, tags …); tab, newline, ZWJ, variation selectors and the rest kept", () => {
  const rows: [string, string][] = [
    ["last state BOOTSTRAPPING (\u202eevil) Fix what is not ready", "last state BOOTSTRAPPING (\\u202eevil) Fix what is not ready"],
    ["\u2066iso\u2069 \u200eLRM \u061cALM", "\\u2066iso\\u2069 \\u200eLRM \\u061cALM"],
    ["hid\u200bden\u2060 \ufeffBOM", "hid\\u200bden\\u2060 \\ufeffBOM"],
    ["serial S6ESNE\u2063T61\u00ad2345 MVS\u180e tag\u{e0041} filler\u3164", "serial S6ESNE\\u2063T61\\u00ad2345 MVS\\u180e tag\\u{e0041} filler\\u3164"],
    ["\u009b2J \x1b[31m \x00 \u2028", "\\u009b2J \\u001b[31m \\u0000 \\u2028"],
    ["line one\n\tline two", "line one\n\tline two"],
    ["é 雪 👩\u200d💻 \u200c ❤\ufe0f 葛\u{e0100}", "é 雪 👩\u200d💻 \u200c ❤\ufe0f 葛\u{e0100}"],
  ];
  for (const [sent, shown] of rows) assert.equal(visible(sent), shown, JSON.stringify(sent));
});
