import { readIfPresent } from "../fs/read-if-present.ts";
import { stateLayout } from "../state/layout.ts";

/** Apart from the code's making and checking: `installer code` prints it without loading node:crypto. */
export async function readInstallCode(stateDir: string): Promise<string | undefined> {
  const code = (await readIfPresent(stateLayout(stateDir).installCode))?.trim();
  return code ? code : undefined;
}
