import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Script } from "node:vm";
import { MAIN_MARK, bundleFolderRefusal, commandsSource, layOutBundle } from "../../cli/fast-start.ts";

// The real front spells the mark too, in a template literal of the minified cli/fast-start.ts.
const FRONT = `#!/usr/bin/env node\n"use strict";\nconst mark = \`${MAIN_MARK}\`;\nconsole.log("front");`;
// Lines that begin with "//" of their own, an empty line, a non-ASCII character, a last line without a newline.
const COMMANDS = ['"use strict";', "// a comment of the code's own", "", 'module.exports.word = "café";', "module.exports.line = new Error().stack.split(\"\\n\")[1];"].join("\n");

describe("the bundle's two parts: laid out at build time, the commands' code taken back at run time", () => {
  test("the commands' code comes back exactly as it was laid out, wrapped as a CommonJS module's function", () => {
    const { source, bytes } = commandsSource(Buffer.from(layOutBundle(FRONT, COMMANDS)));
    assert.equal(source, `(function (exports, require, module, __filename, __dirname) {\n${COMMANDS}\n})`);
    assert.equal(bytes.toString("utf8"), source);
  });

  test("it runs, and a stack names the bundle's own line", () => {
    const bundle = layOutBundle(FRONT, COMMANDS);
    const { source, lineOffset } = commandsSource(Buffer.from(bundle));
    const module = { exports: {} as { word?: string; line?: string } };
    (new Script(source, { filename: "installer.js", lineOffset }).runInThisContext() as (...args: unknown[]) => void)(module.exports, undefined, module);
    assert.equal(module.exports.word, "café");
    const line = Number(/installer\.js:(\d+):/.exec(module.exports.line!)?.[1]);
    assert.equal(bundle.split("\n")[line - 1], `//${COMMANDS.split("\n")[4]}`);
  });

  test("a bundle without its commands' code (a copy cut short in its front, a CRLF conversion) is refused", () => {
    const bundle = layOutBundle(FRONT, COMMANDS);
    assert.throws(() => commandsSource(Buffer.from(bundle.slice(0, FRONT.indexOf("const mark")))), /not a whole installer bundle/);
    assert.throws(() => commandsSource(Buffer.from(bundle.replaceAll("\n", "\r\n"))), /not a whole installer bundle/);
  });
});

describe("a cache beside the bundle: its folder", () => {
  test("a folder others may write is refused, its mode written out whole (1777 for /tmp's kind, not 777)", (t) => {
    const folder = mkdtempSync(join(tmpdir(), "fast-start-"));
    t.after(() => rmSync(folder, { recursive: true, force: true }));
    const bundle = join(folder, "installer.js");
    chmodSync(folder, 0o700);
    assert.equal(bundleFolderRefusal(bundle), undefined);
    for (const [mode, shown] of [[0o1777, "1777"], [0o775, "775"], [0o2777, "2777"]] as const) {
      chmodSync(folder, mode);
      assert.equal(bundleFolderRefusal(bundle), `the bundle's folder is writable by others (mode ${shown})`);
    }
  });
});
