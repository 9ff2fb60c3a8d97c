import { randomInt, timingSafeEqual } from "node:crypto";
import { writeFilesAtomic } from "../fs/atomic-write.ts";
import { stateLayout } from "../state/layout.ts";
import { ALPHABET, GROUP_LENGTH, GROUPS, readInstallCode } from "./install-code-file.ts";

export function generateInstallCode(): string {
  const groups: string[] = [];
  for (let g = 0; g < GROUPS; g++) {
    let group = "";
    for (let i = 0; i < GROUP_LENGTH; i++) group += ALPHABET[randomInt(ALPHABET.length)];
    groups.push(group);
  }
  return groups.join("-");
}

/** Case and dashes/spaces do not matter to a person typing the code. */
export function normalizeInstallCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

/**
 * Compares in constant time. A code of another length is refused without comparing: the length
 * (12 letters) is printed in every banner, so it tells a guesser nothing.
 */
export function codeMatcher(expected: string): (presented: string) => boolean {
  const same = sameBytes(normalizeInstallCode(expected));
  return (presented) => same(normalizeInstallCode(presented));
}

/**
 * Is `text` these bytes, in UTF-8: compared in constant time when it has their length (which tells a guesser
 * nothing: the code's length is printed in every banner). Each text is written into the same bytes: a new Buffer a
 * request was a tenth of what the installer's own code adds to a GET /status (bench/RESULTS.md).
 */
function sameBytes(expected: string): (text: string) => boolean {
  const want = Buffer.from(expected);
  const got = Buffer.alloc(want.length);
  // Only a text of the right length in UTF-8 is written, whole.
  return (text) => Buffer.byteLength(text) === want.length && got.write(text) === want.length && timingSafeEqual(got, want);
}

/**
 * The code in an `Authorization` header (see `presentedCode`) against `expected`: undefined when none was sent.
 * The header every client sends, `Bearer ` and the code as the banner shows it, is compared whole (in constant
 * time) without being taken apart first: the check runs on every request, GET /status polled included.
 */
export function headerMatcher(expected: string): (authorization: string | undefined) => boolean | undefined {
  const asShown = sameBytes(`Bearer ${expected}`);
  const matches = codeMatcher(expected);
  return (authorization) => {
    if (authorization === undefined) return undefined;
    if (asShown(authorization)) return true;
    const code = presentedCode(authorization);
    return code === undefined ? undefined : matches(code);
  };
}

/**
 * Reads the state dir's code, creating it (mode 0600) on first use. A file found empty gets a new code too, and a
 * notice for the banner: a plan or a script that reads the old code must be told.
 */
export async function loadOrCreateInstallCode(stateDir: string): Promise<{ code: string; notice?: string }> {
  const path = stateLayout(stateDir).installCode;
  const existing = await readInstallCode(stateDir);
  if (existing) return { code: existing };
  const code = generateInstallCode();
  // Whole or not there, and made new (exclusive) when there was none: a file a kill or a full disk left empty or half
  // would have the next start say it found the code empty and replaced one that nobody was ever shown.
  await writeFilesAtomic([{ path, data: `${code}\n`, exclusive: existing === undefined }]);
  return existing === "" ? { code, notice: `${path} was empty: a new install code is made there (plans and scripts that read the old one must be given this one)` } : { code };
}

/**
 * `Authorization: Bearer <code>` or the bare code. Undefined when no code was sent at all, `Bearer` alone
 * included: that is what `curl -H "Authorization: Bearer $CODE"` sends when $CODE is empty.
 */
export function presentedCode(authorization: string | undefined): string | undefined {
  const value = authorization?.trim() ?? "";
  // `s`: a line break inside the value is the code's, as any other whitespace (HTTP refuses one in a header anyway).
  const code = (/^bearer(?:\s+|$)(.*)$/is.exec(value)?.[1] ?? value).trim();
  return code ? code : undefined;
}
