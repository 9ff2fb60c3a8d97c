import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { shellWord } from "../../../cli/fleet/index.ts";
import { printable } from "../../../core/common/printable.ts";

test("the note's words, pasted into bash, are the words the fleet was given, and show no character a terminal obeys", () => {
  const words = ["plan.yaml", "--parallel=2", "my plan.yaml", "it's a \"dir\"/$HOME/`id`;$(id).yaml", "back\\slash", "\u001b[31mred\u001b[0m.yaml", "bell\u0007", "new\nline", "\u202eevil", "soft\u00adhyphen", "tag\u{e0041}", "c1\u0085", "tab\there", "ünïcødé.yaml", "-x.yaml", ""];
  for (const word of words) {
    const quoted = shellWord(word);
    assert.equal(printable(quoted), quoted, `${JSON.stringify(word)} → ${quoted}: printable as it is`);
    const back = execFileSync("bash", ["-c", `printf %s ${quoted}`], { encoding: "utf8", env: { ...process.env, LC_ALL: "C.UTF-8" } });
    assert.equal(back, word, `${JSON.stringify(word)} → ${quoted}`);
  }
});
