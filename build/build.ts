import { build, type Plugin } from "esbuild";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { layOutBundle } from "../cli/fast-start.ts";
import { bundleConsole } from "./console.ts";
import { bundleHashWorker } from "./worker.ts";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
const outfile = "dist/installer.js";

/**
 * zod re-exports every locale (≈250 KB), a JSON Schema importer and an ahead-of-time parser
 * compiler (≈29 KB) the installer never calls; the installer speaks English, only exports JSON
 * Schema and parses with zod's runtime parser.
 */
const notBundled = (name: string) => `function() { throw new Error("zod's ${name} is not bundled into the installer"); }`;
const ZOD_STUBS: Record<string, string> = {
  "../locales/index.js": 'export { default as en } from "../locales/en.js";',
  "./from-json-schema.js": `export const fromJSONSchema = ${notBundled("fromJSONSchema")};`,
  "./compile.js": [
    'export const INVALID = Symbol.for("zod.compile.invalid");',
    "export class ZodCompileAsyncError extends Error {}",
    "export class ZodCompileUnsupportedError extends Error {}",
    ...["compile", "compileFn", "withParser"].map((name) => `export const ${name} = ${notBundled(name)};`),
  ].join("\n"),
};
const leanZod: Plugin = {
  name: "lean-zod",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/(locales\/index|from-json-schema|compile)\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/") ? { path: args.path, namespace: "lean-zod", pluginData: args.resolveDir } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lean-zod" }, (args) => ({ contents: ZOD_STUBS[args.path], resolveDir: args.pluginData as string, loader: "js" }));
  },
};

/** The console's page, script and stylesheet, built once and carried in the bundle as strings. */
const embeddedConsole: Plugin = {
  name: "embedded-console",
  setup(b) {
    b.onLoad({ filter: /\/build\/console-assets\.ts$/ }, () => ({
      contents: Object.entries(bundleConsole()).map(([name, text]) => `export const ${name} = ${JSON.stringify(text)};`).join("\n"),
      loader: "js",
    }));
  },
};

/** The payload's hash worker, built once and carried in the bundle as a string. */
const embeddedHashWorker: Plugin = {
  name: "embedded-hash-worker",
  setup(b) {
    b.onLoad({ filter: /\/build\/worker-assets\.ts$/ }, () => ({ contents: `export const HASH_WORKER_JS = ${JSON.stringify(bundleHashWorker())};`, loader: "js" }));
  },
};

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  minify: true,
  legalComments: "none",
  metafile: true,
  write: false,
  define: { __STRATUM_VERSION__: JSON.stringify(pkg.version) },
} as const;

/** One file, two parts (cli/fast-start.ts): the front (installer.ts), then the commands' code (cli/main.ts). */
// The front is built for Node 12 (Debian 11's), so that an old Node parses it and says which Node it needs.
// Before anything else: the bundle is CommonJS; copied alone under a package.json that says "type": "module" (its own
// beside it is gone), Node loads it as an ES module, where `require` is not defined: say that, not a stack trace.
const ESM_GUARD = `"use strict";if(typeof require!=="function"){process.stderr.write("installer: "+process.argv[1]+" is CommonJS, but Node loads it as an ES module here: a package.json in its folder or one above says \\"type\\": \\"module\\". Put a package.json holding {\\"type\\":\\"commonjs\\"} beside it, or copy it to a folder without one.\\n");process.exit(2)}`;
const front = await build({ ...common, target: "node12", entryPoints: ["installer.ts"], outfile, banner: { js: `#!/usr/bin/env node\n${ESM_GUARD}` } });
const main = await build({ ...common, entryPoints: ["cli/main.ts"], outfile, plugins: [leanZod, embeddedConsole, embeddedHashWorker] });
const frontJs = front.outputFiles[0]!.text.trimEnd();
mkdirSync("dist", { recursive: true });
writeFileSync(outfile, layOutBundle(frontJs, main.outputFiles[0]!.text));

// The repo's package.json says "type": "module"; the bundle is CommonJS.
writeFileSync("dist/package.json", `${JSON.stringify({ type: "commonjs" })}\n`);

if (process.argv.includes("--analyze")) {
  const { analyzeMetafile } = await import("esbuild");
  console.log(await analyzeMetafile(front.metafile));
  console.log(await analyzeMetafile(main.metafile));
}
console.log(`${outfile}: ${statSync(outfile).size} bytes (front ${frontJs.length})`);
