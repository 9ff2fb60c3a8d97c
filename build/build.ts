import { build, type Plugin } from "esbuild";
import { readFileSync, statSync, writeFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
const outfile = "dist/installer.js";

/**
 * zod re-exports every locale (≈250 KB) and a JSON Schema importer the installer never
 * calls; the installer speaks English and only exports JSON Schema.
 */
const ZOD_STUBS: Record<string, string> = {
  "../locales/index.js": 'export { default as en } from "../locales/en.js";',
  "./from-json-schema.js": 'export function fromJSONSchema() { throw new Error("fromJSONSchema is not bundled"); }',
};
const leanZod: Plugin = {
  name: "lean-zod",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/(locales\/index|from-json-schema)\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/") ? { path: args.path, namespace: "lean-zod", pluginData: args.resolveDir } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lean-zod" }, (args) => ({ contents: ZOD_STUBS[args.path], resolveDir: args.pluginData as string, loader: "js" }));
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
  plugins: [leanZod],
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
