/**
 * Writes an offline payload (release.yaml + image files with their real sha256) for
 * the demo, tests and benchmarks. As a script: node --import tsx demo/make-payload.ts DIR [MiB].
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

interface PayloadSpec {
  release?: string;
  profiles?: Record<string, { enabled: boolean; preview?: boolean }>;
  images?: { file: string; bytes: number }[];
}

export const DEFAULT_PROFILES = {
  "single-node": { enabled: true },
  hyperconverged: { enabled: true },
  disaggregated: { enabled: false, preview: true },
};

export async function makePayload(folder: string, spec: PayloadSpec = {}): Promise<{ releaseYaml: string; images: { file: string; size: number; sha256: string }[] }> {
  const images = [];
  for (const image of spec.images ?? [{ file: "images/stratum-base.tar", bytes: 64 * 1024 }, { file: "images/ceph.tar", bytes: 32 * 1024 }]) {
    const content = randomBytes(image.bytes);
    const path = join(folder, image.file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    images.push({ file: image.file, size: image.bytes, sha256: createHash("sha256").update(content).digest("hex") });
  }
  const profiles: Record<string, { enabled: boolean; preview?: boolean }> = spec.profiles ?? DEFAULT_PROFILES;
  const releaseYaml = [
    `release: ${spec.release ?? "2026.11.0"}`,
    "profiles:",
    ...Object.entries(profiles).map(([name, p]) => `  ${name}: { enabled: ${p.enabled}${p.preview !== undefined ? `, preview: ${p.preview}` : ""} }`),
    "images:",
    ...images.flatMap((i) => [`  - file: ${i.file}`, `    size: ${i.size}`, `    sha256: ${i.sha256}`]),
    "",
  ].join("\n");
  await writeFile(join(folder, "release.yaml"), releaseYaml);
  return { releaseYaml, images };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [folder, mib] = process.argv.slice(2);
  if (!folder) {
    console.error("usage: node --import tsx demo/make-payload.ts DIR [MiB per image]");
    process.exit(2);
  }
  const bytes = Math.round(Number(mib ?? 0.0625) * 1024 * 1024);
  makePayload(folder, { images: [{ file: "images/stratum-base.tar", bytes }, { file: "images/ceph.tar", bytes }] }).then(
    () => console.log(`payload written to ${folder}`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
