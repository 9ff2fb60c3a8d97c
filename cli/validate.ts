import { join } from "node:path";
import { analyzeYamlDraft } from "../core/config/index.ts";
import { YAML_LIMITS } from "../core/config/yaml.ts";
import { loadHostFactsFile, readHostFacts } from "../core/host/read-facts.ts";
import { RELEASE_FILE, readReleaseFile } from "../core/payload/release-file.ts";
import { BUILT_IN_RELEASE } from "../core/payload/release-model.ts";
import { printable } from "../core/common/printable.ts";
import { readTextFile, readTextStream, whyUnreadable } from "../core/fs/read-text-file.ts";
import type { Exit } from "./commands.ts";
import { formatProblems, type Format } from "./problem-format.ts";

const STDIN = "-";

interface ValidateOptions {
  hostFacts: string | undefined;
  payload: string;
  format: Format;
}

/**
 * `validate FILE` (`-` for stdin): the service's own validator, offline. Modes are judged by the
 * payload's release.yaml, as the service judges them; without one, by the built-in release model
 * (and a note on stderr says so). Exit 0 valid, 1 invalid, 2 unreadable (the file or the host facts).
 */
export async function validateFile(file: string, { hostFacts, payload: payloadFolder, format }: ValidateOptions): Promise<Exit> {
  const shown = file === STDIN ? "<stdin>" : file;
  let yaml: string;
  try {
    // As the unattended install takes a node.yaml: a folder, a named pipe, a device, over 1 MiB or not UTF-8 is refused.
    yaml = file === STDIN ? await readTextStream(process.stdin, shown, YAML_LIMITS.maxBytes) : await readTextFile(file, YAML_LIMITS.maxBytes);
  } catch (err) {
    process.stderr.write(`${printable(`${shown}: cannot read: ${whyUnreadable(err as Error, file)}`)}\n`);
    return 2;
  }
  let host;
  try {
    host = hostFacts ? await loadHostFactsFile(hostFacts) : await readHostFacts();
  } catch (err) {
    // Exit 1 says the node.yaml is invalid: host facts that cannot be read leave it unchecked.
    process.stderr.write(`installer: ${printable((err as Error).message)}; nothing was checked (--host-facts names a JSON file of the host inventory)\n`);
    return 2;
  }
  const payload = await readReleaseFile(payloadFolder);
  if (payload.kind !== "ready") {
    const why = payload.kind === "missing" ? `no ${RELEASE_FILE} in ${payloadFolder}` : `${join(payloadFolder, RELEASE_FILE)} is ${payload.kind} (${payload.problem})`;
    process.stderr.write(`note: ${printable(why)}; modes are checked against the built-in release model (--payload DIR names the payload folder)\n`);
  }
  const release = payload.kind === "ready" ? payload.release.model : BUILT_IN_RELEASE;
  const { errors } = analyzeYamlDraft(yaml, { host, release });
  process.stdout.write(formatProblems(shown, errors, format));
  return errors.length > 0 ? 1 : 0;
}
