import { buildSync } from "esbuild";
import { fileURLToPath } from "node:url";

/** The payload's hash worker as one CommonJS program: a worker thread runs it from this string, so the bundle stays one file. */
export function bundleHashWorker(): string {
  const built = buildSync({
    entryPoints: [fileURLToPath(new URL("../core/payload/hash-worker.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "cjs",
    platform: "node",
    target: "node20",
    minify: true,
    legalComments: "none",
  });
  return built.outputFiles[0]!.text;
}
