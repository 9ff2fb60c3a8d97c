import { join } from "node:path";
import { readIfPresent } from "../fs/read-if-present.ts";

/** Apart from the code's making and checking: `installer code` prints it without loading node:crypto. */
export const INSTALL_CODE_FILE = "install-code";

export async function readInstallCode(stateDir: string): Promise<string | undefined> {
  const code = (await readIfPresent(join(stateDir, INSTALL_CODE_FILE)))?.trim();
  return code ? code : undefined;
}
