import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { clip, columns, padColumns } from "../../../cli/fleet/output/columns.ts";

test("the columns text takes on a terminal: wide and fullwidth characters and emoji two, combining and invisible marks none; a sequence a terminal may draw narrower counted wider, never narrower", () => {
  const rows: [string, number][] = [
    ["node-01 firstboot", 17],
    ["镜像拉取", 8],
    ["ｆｕｌｌ", 8],
    ["한국어", 6],
    ["e\u0301\u0301", 1],
    ["a\u200db\ufe0f", 2],
    ["🚀", 2],
    ["❤️", 2],
    ["1️⃣", 2],
    ["🇫🇷", 2],
    ["👍🏽", 4],
    ["👨‍👩‍👧", 6],
    ["…", 1],
    ["", 0],
  ];
  for (const [text, expected] of rows) assert.equal(columns(text), expected, JSON.stringify(text));
});

test("clip: the longest start within the width, cut between characters (never inside a surrogate pair); padColumns fills to the width", () => {
  assert.equal(clip("镜像拉取", 5), "镜像");
  assert.equal(clip("ab🚀cd", 3), "ab");
  assert.equal(clip("ab🚀cd", 4), "ab🚀");
  assert.equal(clip("plain text", 5), "plain");
  assert.equal(padColumns("镜像", 6), "镜像  ");
  assert.equal(padColumns("toolong", 3), "toolong");
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.nat(60), (text, width) => {
      const cut = clip(text, width);
      assert.ok(text.startsWith(cut));
      assert.ok(columns(cut) <= width);
      assert.doesNotMatch(cut, /[\ud800-\udbff]$/, "no lone high surrogate at the cut");
      if (cut.length < text.length) assert.ok(columns(text.slice(0, cut.length + [...text.slice(cut.length)][0]!.length)) > width, "the next character would not fit");
    }),
  );
});
