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
 * The state dir's install code, undefined when there is none yet; apart from the code's making and checking:
 * `installer code` prints it without loading node:crypto. A file holding what the installer never makes is refused:
 * a code that short is guessed, and its text would reach the banner and the terminal.
 */
export async function readInstallCode(stateDir: string): Promise<string | undefined> {
  const path = stateLayout(stateDir).installCode;
  const code = (await readIfPresent(path))?.trim();
  if (!code) return undefined;
  if (!CODE_SHAPE.test(code)) throw new NeedsOperator(`${path} does not hold an install code this installer made (three groups of four of ${ALPHABET}); remove it and start again for a new code`);
  return code;
}
