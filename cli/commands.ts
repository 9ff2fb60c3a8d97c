import { nodeYamlJsonSchema } from "../core/config/index.ts";
import { readInstallCode } from "../core/access/install-code.ts";
import { openApiDocument } from "../handlers/app.ts";

export type Exit = 0 | 1 | 2;

export async function printOpenApi(version: string): Promise<Exit> {
  process.stdout.write(`${JSON.stringify(await openApiDocument(version), null, 2)}\n`);
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
