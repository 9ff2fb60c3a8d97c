import { build } from "esbuild";
import { readFileSync, statSync, writeFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
const outfile = "dist/installer.js";

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
