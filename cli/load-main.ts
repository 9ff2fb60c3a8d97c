import { readFileSync } from "node:fs";
import { Script } from "node:vm";
import { compileWithCodeCache, type CodeCache } from "./code-cache.ts";
import type * as Main from "./main.ts";

/**
 * The build puts cli/main.ts's bundle after this line, each of its lines behind `//`: compiling the front, V8
 * skims it as comments (compiling all of it cost --version ≈ 2.5× `node -e 0`).
 */
export const MAIN_MARK = "\n//# stratum-installer: the commands' code\n";

function mainSource(): { source: string; lineOffset: number } {
  const bundle = readFileSync(__filename, "utf8");
  const at = bundle.lastIndexOf(MAIN_MARK);
  if (at < 0) throw new Error(`${__filename} is not a whole installer bundle`);
  const commented = bundle.slice(at + MAIN_MARK.length - 1);
  const body = commented.replaceAll("\n//", "\n");
  return {
    source: `(function (exports, require, module, __filename, __dirname) {${body}\n})`,
    lineOffset: bundle.slice(0, at + MAIN_MARK.length).split("\n").length - 2,
  };
}

/** Compiles and runs the commands' code; with a state dir, from (and later into) its code cache. */
export function loadMain(stateDir: string | undefined): { main: typeof Main; codeCache: CodeCache | undefined } {
  const { source, lineOffset } = mainSource();
  const options = { filename: __filename, lineOffset };
  const { script, codeCache } = stateDir === undefined ? { script: new Script(source, options), codeCache: undefined } : compileWithCodeCache(source, options, stateDir);
  const module = { exports: {} as typeof Main };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, __filename, __dirname);
  return { main: module.exports, codeCache };
}
