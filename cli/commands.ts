import { noInstallCode, readInstallCode } from "../core/access/install-code-file.ts";

export type Exit = 0 | 1 | 2;

export async function printCode(stateDir: string): Promise<Exit> {
  const code = await readInstallCode(stateDir).catch((err: Error) => {
    process.stderr.write(`cannot read the install code in ${stateDir}: ${err.message}\n`);
    return null;
  });
  if (code === null) return 2;
  if (!code) {
    process.stderr.write(`${noInstallCode(stateDir, code)}\n`);
    return 2;
  }
  process.stdout.write(`${code}\n`);
  return 0;
}
