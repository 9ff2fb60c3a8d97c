import assert from "node:assert/strict";
import { test } from "node:test";
import { printable } from "../../cli/printable.ts";

test("what a node sends reaches the terminal visible, never obeyed", () => {
  const rows: [string, string][] = [
    ["firstboot: done", "firstboot: done"],
    ["\x1b]0;owned\x07title", "\\x1b]0;owned\\x07title"],
    ["\x1b[2J\x1b[6n\x1b[31mred\x1b[0m", "\\x1b[2J\\x1b[6n\\x1b[31mred\\x1b[0m"],
    ["a\rb\nc\td\0e\x7f", "a\\x0db\\x0ac\\x09d\\x00e\\x7f"],
    ["\u009b2J 8-bit CSI", "\\x9b2J 8-bit CSI"],
    ["\u202eevil\u2066\u2028", "\\u202eevil\\u2066\\u2028"],
    ["é ✓ 😀 \\x1b", "é ✓ 😀 \\x1b"],
  ];
  for (const [sent, shown] of rows) assert.equal(printable(sent), shown, JSON.stringify(sent));
  for (const [sent] of rows) assert.equal(printable(printable(sent)), printable(sent), "shown once, never escaped twice");
});
