import { noInstallCode, readInstallCode } from "../core/access/install-code-file.ts";
import { printable } from "../core/common/printable.ts";
import { stateDirNotReadable } from "../core/fs/storage-error.ts";

export type Exit = 0 | 1 | 2;

export async function printCode(stateDir: string): Promise<Exit> {
  const code = await readInstallCode(stateDir).catch((err: Error) => {
    process.stderr.write(`${printable(stateDirNotReadable(stateDir, err) ?? `cannot read the install code in ${stateDir}: ${err.message}`)}\n`);
    return null;
  });
  if (code === null) return 2;
  if (!code) {
    process.stderr.write(`${printable(noInstallCode(stateDir, code))}\n`);
    return 2;
  }
  process.stdout.write(`${code}\n`);
  return 0;
}
