import { buildSync, transformSync } from "esbuild";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const at = (file: string) => fileURLToPath(new URL(`../console/${file}`, import.meta.url));

/**
 * The console as the installer serves it: the page as written, the script bundled for the browser
 * and the stylesheet minified (browsers get the same code, about half the bytes).
 */
export function bundleConsole(): { CONSOLE_HTML: string; CONSOLE_JS: string; CONSOLE_CSS: string } {
  const script = buildSync({
    entryPoints: [at("main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
  });
  return {
    CONSOLE_HTML: readFileSync(at("index.html"), "utf8"),
    CONSOLE_JS: script.outputFiles[0]!.text,
    CONSOLE_CSS: transformSync(readFileSync(at("styles.css"), "utf8"), { loader: "css", minify: true, target: "chrome100" }).code,
  };
}
