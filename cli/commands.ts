import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { analyzeYamlDraft, nodeYamlJsonSchema } from "../core/config/index.ts";
import { loadHostFactsFile, readHostFacts } from "../core/host-facts.ts";
import { readInstallCode } from "../core/access/install-code.ts";
import { RELEASE_FILE, readReleaseFile } from "../core/payload/release-file.ts";
import { BUILT_IN_RELEASE } from "../core/release.ts";
import { openApiDocument } from "../handlers/app.ts";

export type Exit = 0 | 1 | 2;

export function printOpenApi(version: string): Exit {
  process.stdout.write(`${JSON.stringify(openApiDocument(version), null, 2)}\n`);
  return 0;
}

export function printSchema(): Exit {
  process.stdout.write(`${JSON.stringify(nodeYamlJsonSchema(), null, 2)}\n`);
  return 0;
}

export async function printCode(stateDir: string): Promise<Exit> {
  const code = await readInstallCode(stateDir).catch((err: Error) => {
    process.stderr.write(`cannot read the install code in ${stateDir}: ${err.message}\n`);
    return null;
  });
  if (code === null) return 2;
  if (code === undefined) {
    process.stderr.write(`no install code in ${stateDir} yet: start the installer once (it creates one), or pass --state-dir\n`);
    return 2;
  }
  process.stdout.write(`${code}\n`);
  return 0;
}

/**
 * `validate FILE`: the service's own validator, offline; `FILE:LINE:COL field: message` per problem.
 * Modes are judged by the payload's release.yaml, as the service judges them; without one, by the
 * built-in release model (and a note on stderr says so).
 */
export async function validateFile(file: string, hostFactsFile: string | undefined, payloadFolder: string): Promise<Exit> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    process.stderr.write(`${file}: cannot read: ${(err as Error).message}\n`);
    return 2;
  }
  const host = hostFactsFile ? await loadHostFactsFile(hostFactsFile) : await readHostFacts();
  const payload = await readReleaseFile(payloadFolder);
  if (payload.kind !== "ready") {
    const why = payload.kind === "missing" ? `no ${RELEASE_FILE} in ${payloadFolder}` : `${join(payloadFolder, RELEASE_FILE)} is ${payload.kind} (${payload.problem})`;
    process.stderr.write(`note: ${why}; modes are checked against the built-in release model (--payload DIR names the payload folder)\n`);
  }
  const release = payload.kind === "ready" ? payload.release.model : BUILT_IN_RELEASE;
  const { errors } = analyzeYamlDraft(text, { host, release });
  for (const e of errors) {
    const where = `${file}:${e.line ?? 1}:${e.column ?? 1}`;
    process.stdout.write(`${where} ${e.field || "(config)"}: ${e.message}${e.hint ? ` (${e.hint})` : ""}\n`);
  }
  if (errors.length > 0) {
    process.stdout.write(`${file}: ${errors.length} problem${errors.length === 1 ? "" : "s"}\n`);
    return 1;
  }
  process.stdout.write(`${file}: valid\n`);
  return 0;
}
