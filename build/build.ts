import { build, transform, type Plugin } from "esbuild";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

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

/**
 * The console's script and stylesheet are written readable in string modules; the bundle carries
 * them minified (browsers get the same code, ≈45% smaller). The console tests drive this build.
 */
const CONSOLE_ASSETS: Record<string, { name: string; loader: "js" | "css" }> = {
  "console/script.ts": { name: "CONSOLE_JS", loader: "js" },
  "console/styles.ts": { name: "CONSOLE_CSS", loader: "css" },
};
const minifiedConsole: Plugin = {
  name: "minified-console",
  setup(b) {
    b.onLoad({ filter: /\/console\/(script|styles)\.ts$/ }, async (args) => {
      const asset = CONSOLE_ASSETS[args.path.slice(args.path.lastIndexOf("console/"))]!;
      const source = ((await import(pathToFileURL(args.path).href)) as Record<string, string>)[asset.name]!;
      const { code } = await transform(source, { loader: asset.loader, minify: true, target: asset.loader === "js" ? "es2020" : "chrome100" });
      return { contents: `export const ${asset.name} = ${JSON.stringify(code)};`, loader: "js" };
    });
  },
};

const result = await build({
  entryPoints: ["installer.ts"],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  minify: true,
  legalComments: "none",
  metafile: true,
  plugins: [leanZod, minifiedConsole],
  define: { __STRATUM_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: "#!/usr/bin/env node" },
});

// The repo's package.json says "type": "module"; the bundle is CommonJS.
writeFileSync("dist/package.json", `${JSON.stringify({ type: "commonjs" })}\n`);

if (process.argv.includes("--analyze")) {
  const { analyzeMetafile } = await import("esbuild");
  console.log(await analyzeMetafile(result.metafile));
}
console.log(`${outfile}: ${statSync(outfile).size} bytes`);
