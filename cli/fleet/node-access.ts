import { quoted, shown } from "../../core/config/messages.ts";
import { readTextFile, whyUnreadable } from "../../core/fs/read-text-file.ts";
import { resolve } from "node:path";

/** How the fleet reaches one node's installer: where, which certificate, which install code. */
export interface NodeAccess {
  url: URL;
  /** SHA-256 of the installer's certificate, 64 lowercase hex digits. */
  pin: string;
  code: string;
}

/** "9F:86:D0:…" (any case) or plain hex → 64 lowercase hex digits; undefined when it is not a SHA-256. */
export function parseFingerprint(text: string): string | undefined {
  const trimmed = text.trim();
  const hex = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){31}$/.test(trimmed) ? trimmed.replaceAll(":", "") : trimmed;
  return /^[0-9a-fA-F]{64}$/.test(hex) ? hex.toLowerCase() : undefined;
}

/** As the installer's banner prints it: uppercase pairs joined by colons. */
export function formatFingerprint(hex: string): string {
  return hex.toUpperCase().match(/../g)!.join(":");
}

export function installerUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${quoted(text)} is not a URL (e.g. https://10.20.0.11:9443)`;
  }
  if (url.protocol !== "https:") return `${shown(text)} is not https:// (installers serve HTTPS only)`;
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) return `${shown(text)} has more than https://host:port; give the installer's address alone`;
  if (url.port === "0") return `${shown(text)}: port 0 is no installer's: give the port its banner names (9443 unless --listen said otherwise)`;
  return undefined;
}

type CodeSource = { ok: true; code: string } | { ok: false; problem: string };

/**
 * A code as sent (a header's printable ASCII), or what is wrong with it: a character outside it would be refused by
 * the client as the request goes out (a control character), or sent and counted against the node as a wrong code.
 */
function checkedCode(code: string, where: string): CodeSource {
  const odd = /[^\t\x20-\x7e]/u.exec(code)?.[0];
  if (odd === undefined) return { ok: true, code };
  const named = `U+${odd.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  return { ok: false, problem: `${where} holds the character ${named}, which no install code has: codes are printable ASCII, letters and digits in groups with dashes or spaces (a dash, space or letter pasted from a document? type it again)` };
}

/** `env:VAR`, `file:PATH` (relative to the plan's folder; its first line) or the code itself. */
/** An install code's file holds one line; anything much bigger is not one. */
const CODE_FILE_BYTES = 64 * 1024;

export async function resolveCode(source: string, planFolder: string, env: NodeJS.ProcessEnv): Promise<CodeSource> {
  if (source.startsWith("env:")) {
    const name = source.slice(4);
    const value = env[name]?.trim();
    return value ? checkedCode(value, `the environment variable ${shown(name)}`) : { ok: false, problem: `the environment variable ${shown(name)} is not set (or empty)` };
  }
  if (source.startsWith("file:")) {
    const path = resolve(planFolder, source.slice(5));
    const text = await readTextFile(path, CODE_FILE_BYTES).catch((error: Error) => error);
    if (text instanceof Error) return { ok: false, problem: `cannot read ${shown(path)}: ${whyUnreadable(text, path)}` };
    const code = text.split("\n")[0]?.trim();
    return code ? checkedCode(code, `the first line of ${shown(path)}`) : { ok: false, problem: `${shown(path)} is empty` };
  }
  return checkedCode(source.trim(), "the install code");
}
