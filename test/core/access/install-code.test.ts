import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cp, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { codeMatcher, generateInstallCode, headerMatcher, loadOrCreateInstallCode, presentedCode } from "../../../core/access/install-code.ts";
import { noInstallCode, readInstallCode } from "../../../core/access/install-code-file.ts";
import { stateLayout } from "../../../core/state/layout.ts";
import { openStore } from "../../../core/state/store.ts";
import { tempDir } from "../../helpers/installer.ts";
import { stallWrites } from "../../helpers/stalled-write.ts";

describe("codeMatcher", () => {
  const code = "ABCD-EFGH-JKMN";
  const matches = codeMatcher(code);

  for (const spelled of ["ABCD-EFGH-JKMN", "abcd-efgh-jkmn", "ABCDEFGHJKMN", "abcd efgh jkmn", " ABCD-EFGH-JKMN "]) {
    test(`accepts ${JSON.stringify(spelled)}`, () => assert.equal(matches(spelled), true));
  }

  for (const wrong of ["ABCD-EFGH-JKMP", "BBCD-EFGH-JKMN", "ABCD-EFGH-JKM", "ABCD-EFGH-JKMNA", "ABCD-EFGH-JKMN-ABCD", "", "-", "ÄBCD-EFGH-JKMN"]) {
    test(`refuses ${JSON.stringify(wrong)}`, () => assert.equal(matches(wrong), false));
  }

  test("one matcher asked again and again (it writes each presented code into the same bytes): each answer is its own code's", () => {
    // Longer and shorter wrong codes between right ones, and codes whose UTF-8 has 12 bytes or whose characters' low bytes spell the code.
    const asked = ["ABCD-EFGH-JKMN", "ABCD-EFGH-JKMNXYZ", "ABCD-EFGH-JKMN", "ABCD-EFGH-JK", "ÄBCD-EFGH-JKM", "\u0141BCD-EFGH-JKMN", "\u0141BCD-EFGH-JKM", "abcd-efgh-jkmn", "ABCD-EFGH-JKMP"];
    assert.deepEqual(asked.map(matches), [true, false, true, false, false, false, false, true, false]);
  });

  test("a fresh code matches itself and no other fresh code", () => {
    const a = generateInstallCode();
    const b = generateInstallCode();
    assert.match(a, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    assert.equal(codeMatcher(a)(a), true);
    if (a !== b) assert.equal(codeMatcher(a)(b), false);
  });
});

describe("generateInstallCode (SPEC §3: ≥ 40 bits from an unambiguous alphabet, K7QX-M2PD-…)", () => {
  test("three groups of four from one alphabet that holds no letter or digit read as another (0/O, 1/I/L), at least 40 bits; every letter of it is used", () => {
    const codes = Array.from({ length: 2000 }, generateInstallCode);
    const used = new Set(codes.join("").replace(/-/g, ""));
    for (const code of codes) assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    for (const ambiguous of "0O1IL") assert.equal(used.has(ambiguous), false, ambiguous);
    assert.ok(12 * Math.log2(used.size) >= 40, `${used.size} letters: ${12 * Math.log2(used.size)} bits`);
    assert.ok(new Set(codes).size > 1990, "codes repeat");
  });
});

describe("presentedCode", () => {
  const cases: [string | undefined, string | undefined][] = [
    ["Bearer ABCD-EFGH-JKMN", "ABCD-EFGH-JKMN"],
    ["bearer   abcd efgh jkmn ", "abcd efgh jkmn"],
    ["ABCD-EFGH-JKMN", "ABCD-EFGH-JKMN"],
    ["BearerABCD", "BearerABCD"],
    [undefined, undefined],
    ["", undefined],
    ["   ", undefined],
    ["Bearer", undefined],
    ["Bearer   ", undefined],
    ["BEARER\t", undefined],
    ["Bearer abcd\nefgh", "abcd\nefgh"],
  ];
  for (const [header, code] of cases) {
    test(`${JSON.stringify(header)} → ${JSON.stringify(code)}`, () => assert.equal(presentedCode(header), code));
  }
});

describe("headerMatcher", () => {
  /** What the header means, taken apart: no code (undefined), or whether its code is the code. */
  const meaning = (expected: string, header: string | undefined) => {
    const code = presentedCode(header);
    return code === undefined ? undefined : codeMatcher(expected)(code);
  };
  const spellings = (code: string) => {
    const lower = code.toLowerCase();
    const last = code.at(-1) === "Z" ? "Y" : "Z";
    return [
      `Bearer ${code}`, `bearer ${code}`, `BEARER ${lower}`, `Bearer ${lower}`, `Bearer ${code.replaceAll("-", " ")}`, `Bearer ${code.replaceAll("-", "\n")}`, `Bearer  ${code}`, `Bearer\t${code}`, ` Bearer ${code} `, code, lower, `Bearer ${code.replaceAll("-", "")}`,
      `Bearer ${code.slice(0, -1)}${last}`, `Bearer ${code.slice(0, -1)}`, `Bearer ${code}A`, `Bearer ${code} ${code}`, `Bearer-${code}`, `Bearer${code}`, `Token ${code}`,
      // UTF-8 of the same length, or characters whose low bytes spell the header: \u0142 is ł, \u0141 Ł.
      `Bearer \u0141${code.slice(1)}`, `Bearer ${code.slice(0, -2)}\u0141`, `Bearer ${code.slice(0, -1)}\u0100`, `\u0142earer ${code}`,
      "Bearer", "Bearer ", "", "   ", undefined,
    ];
  };

  // The last two as a hand-edited code file could hold them (trimmed, whitespace inside).
  for (const expected of ["ABCD-EFGH-JKMN", generateInstallCode(), generateInstallCode(), "abcd efgh jkmn", "ABCDEFGHJKMN", "ABCD\nEFGH"]) {
    test(`every spelling of a header means what its code means (${expected})`, () => {
      const matches = headerMatcher(expected);
      for (const header of spellings(expected)) assert.equal(matches(header), meaning(expected, header), JSON.stringify(header));
      // Asked in turn with the same matcher: each answer is its own header's.
      for (const header of [...spellings(expected)].reverse()) assert.equal(matches(header), meaning(expected, header), JSON.stringify(header));
    });
  }

  test("the header as the banner shows it, and none", () => {
    const matches = headerMatcher("ABCD-EFGH-JKMN");
    assert.equal(matches("Bearer ABCD-EFGH-JKMN"), true);
    assert.equal(matches("Bearer ABCD-EFGH-JKMP"), false);
    assert.equal(matches("Bearer \u0141BCD-EFGH-JKMN"), false);
    assert.equal(matches("Bearer "), undefined);
    assert.equal(matches(undefined), undefined);
  });
});

describe("the state dir's install code", () => {
  test("made once (0600), then the same at every start", async () => {
    const stateDir = await tempDir();
    const { code, notice } = await loadOrCreateInstallCode(stateDir);
    assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    assert.equal(notice, undefined, "a first start's code is no news");
    assert.deepEqual(await loadOrCreateInstallCode(stateDir), { code });
    assert.equal(await readFile(stateLayout(stateDir).installCode, "utf8"), `${code}\n`);
  });

  test("an empty install-code file is no code: the service makes a new one over it; `code` and `status` name the file, not a wrong state dir", async () => {
    const stateDir = await tempDir();
    await mkdir(stateDir, { recursive: true });
    await writeFile(stateLayout(stateDir).installCode, " \n");
    assert.equal(await readInstallCode(stateDir), "");
    assert.equal(noInstallCode(stateDir, ""), `${stateLayout(stateDir).installCode} is empty: the installer makes a new code there when it next starts (the one it runs with now is in its banner)`);
    const { code, notice } = await loadOrCreateInstallCode(stateDir);
    assert.equal(await readFile(stateLayout(stateDir).installCode, "utf8"), `${code}\n`);
    assert.equal(notice, `${stateLayout(stateDir).installCode} was empty: a new install code is made there (plans and scripts that read the old one must be given this one)`, "said in the banner");
    assert.equal(await readInstallCode(`${stateDir}/none`), undefined);
    assert.match(noInstallCode(`${stateDir}/none`, undefined), /^no install code in .*\/none: is it the installer's state dir \(--state-dir\)\?/);
  });

  for (const [what, text] of [
    ["a code too short to be guessed slowly", "x\n"],
    ["a code with a terminal's escape sequence", "ABCD-EFGH-\u001b[2J\n"],
    ["a code of letters the installer never uses", "OOOO-IIII-1111\n"],
  ] as const) {
    test(`a file holding ${what} is refused, not used nor shown (by the service, \`installer code\` and \`status\`): the installer made none such`, async () => {
      const stateDir = await tempDir();
      await mkdir(stateDir, { recursive: true });
      await writeFile(stateLayout(stateDir).installCode, text);
      for (const read of [loadOrCreateInstallCode, readInstallCode]) {
        await assert.rejects(read(stateDir), (err: Error) => {
          assert.equal(
            err.message,
            `${stateLayout(stateDir).installCode} does not hold an install code this installer made (three groups of four of ${"ABCDEFGHJKMNPQRSTWXYZ23456789"}); remove it and start again for a new code`,
          );
          return true;
        });
      }
    });
  }
});

describe("a start killed while it makes the install code", () => {
  test("leaves no install-code, empty or half, only a temp file; the next start cleans it and makes a code without a notice", async (t) => {
    const stateDir = await tempDir();
    const stall = stallWrites((path) => path.startsWith(stateDir));
    t.after(stall.release);
    const making = loadOrCreateInstallCode(stateDir);
    await stall.held;
    // What a kill -9 now leaves on disk.
    const killed = await tempDir();
    await cp(stateDir, killed, { recursive: true });
    stall.release();
    const { code } = await making;
    assert.equal(await readFile(stateLayout(stateDir).installCode, "utf8"), `${code}\n`);
    assert.equal((await stat(stateLayout(stateDir).installCode)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(stateDir), ["install-code"], "no temp file left by a write that ended");

    assert.equal(await readInstallCode(killed), undefined, "no install-code where the start was killed");
    const opened = await openStore(killed, () => new Date());
    assert.equal(opened.cleanedTempFiles.length, 1, "its temp file is an interrupted write's");
    const next = await loadOrCreateInstallCode(killed);
    assert.equal(next.notice, undefined, "a code nobody was ever shown is no news");
  });
});
