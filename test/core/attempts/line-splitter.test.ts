import assert from "node:assert/strict";
import { test } from "node:test";
import { LineSplitter } from "../../../core/attempts/steps/line-splitter.ts";

const cases: { name: string; keep: number; chunks: string[]; lines: [string, number][] }[] = [
  { name: "lines in one chunk", keep: 100, chunks: ["a\nbc\n"], lines: [["a", 0], ["bc", 0]] },
  { name: "a line across chunks, the last one without a newline", keep: 100, chunks: ["a", "b\nc", "d"], lines: [["ab", 0], ["cd", 0]] },
  { name: "CRLF", keep: 100, chunks: ["a\r", "\nb\r\n\r\n"], lines: [["a", 0], ["b", 0], ["", 0]] },
  { name: "empty lines", keep: 100, chunks: ["\n\n"], lines: [["", 0], ["", 0]] },
  { name: "nothing", keep: 100, chunks: [], lines: [] },
  { name: "a long line is cut, the rest counted", keep: 4, chunks: ["abcdefgh\nij\n"], lines: [["abcd", 4], ["ij", 0]] },
  { name: "a long line across chunks", keep: 4, chunks: ["ab", "cdef", "gh", "\n"], lines: [["abcd", 4]] },
  { name: "a long line with no newline at all", keep: 4, chunks: ["abcdef", "ghij"], lines: [["abcd", 6]] },
];

for (const { name, keep, chunks, lines } of cases) {
  test(`line splitter: ${name}`, () => {
    const seen: [string, number][] = [];
    const splitter = new LineSplitter(keep, (line, dropped) => seen.push([line, dropped]));
    for (const chunk of chunks) splitter.push(Buffer.from(chunk));
    splitter.end();
    assert.deepEqual(seen, lines);
  });
}
