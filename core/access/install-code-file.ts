import { NeedsOperator } from "../common/errors.ts";
import { readIfPresent } from "../fs/read-if-present.ts";
import { stateLayout } from "../state/layout.ts";

/** No 0/O, 1/I/L, U/V: a code read aloud or off a console screen is typed right. */
export const ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789";
export const GROUPS = 3;
export const GROUP_LENGTH = 4;
/** A code as generateInstallCode makes it. */
const CODE_SHAPE = new RegExp(`^[${ALPHABET}]{${GROUP_LENGTH}}(?:-[${ALPHABET}]{${GROUP_LENGTH}}){${GROUPS - 1}}$`);

/**
 * The state dir's install code: undefined when there is no file yet, "" when the file holds nothing (the service
 * makes a new code in its place); apart from the code's making and checking: `installer code` prints it without
 * loading node:crypto. A file holding what the installer never makes is refused: a code that short is guessed, and
 * its text would reach the banner and the terminal.
 */
export async function readInstallCode(stateDir: string): Promise<string | undefined> {
  const path = stateLayout(stateDir).installCode;
  const code = (await readIfPresent(path))?.trim();
  if (!code) return code;
  if (!CODE_SHAPE.test(code)) throw new NeedsOperator(`${path} does not hold an install code this installer made (three groups of four of ${ALPHABET}); remove it and start again for a new code`);
  return code;
}

/** What `installer code` and `status` say when readInstallCode found no code: no file (a wrong --state-dir, or a state dir never started), or an empty one. */
export function noInstallCode(stateDir: string, found: string | undefined): string {
  return found === ""
    ? `${stateLayout(stateDir).installCode} is empty: the installer makes a new code there when it next starts (the one it runs with now is in its banner)`
    : `no install code in ${stateDir}: is it the installer's state dir (--state-dir)? A state dir gets its code when the installer first starts there`;
}
