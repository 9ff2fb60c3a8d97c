import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { tempDir } from "./installer.ts";

/** Secrets as an install uses them: each a value no test data holds by chance. */
export const SECRETS = {
  joinToken: `STRATUM1:${"5e".repeat(32)}:Qm8xWv3Lp0Zt7Kc2Nr5Jy9Hd4Fb6Gs1Ua-Xe_Ro2Vi`,
  joinSecret: "Qm8xWv3Lp0Zt7Kc2Nr5Jy9Hd4Fb6Gs1Ua-Xe_Ro2Vi",
  passwordHash: `$6$rounds=656000$bundlesaltsalt$${"Zq".repeat(43)}`,
};

/** A private key in PEM, as a state dir's tls.key holds one. */
export function tlsKey(): string {
  return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
}

/**
 * Every spelling of a secret a file may hold: as is, JSON-escaped, YAML single-quoted, base64 and base64url (with
 * and without padding), each line of a multi-line one, and a PEM body on one line.
 */
export function spellingsOf(secret: string): string[] {
  const b64 = Buffer.from(secret).toString("base64");
  const b64url = Buffer.from(secret).toString("base64url");
  const lines = secret.split("\n").map((line) => line.trim()).filter((line) => line.length >= 8 && !line.startsWith("-----"));
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), secret.replaceAll("'", "''"), b64, b64.replace(/=+$/, ""), b64url, ...lines, lines.join("")])];
}

/** Extracts a .tar.gz with the system's tar, as a person would: its files by path (below the bundle's top folder). */
export async function extractBundle(bundle: Buffer | string): Promise<{ folder: string; files: Map<string, string> }> {
  const dir = await tempDir("stratum-bundle-");
  let archive = bundle as string;
  if (Buffer.isBuffer(bundle)) {
    archive = join(dir, "bundle.tar.gz");
    await writeFile(archive, bundle);
  }
  const out = join(dir, "x");
  await promisify(execFile)("mkdir", ["-p", out]);
  await promisify(execFile)("tar", ["xzf", archive, "-C", out]);
  const [top] = await readdir(out);
  assert.ok(top, "the bundle has a top folder");
  const folder = join(out, top);
  const files = new Map<string, string>();
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    files.set(relative(folder, path), await readFile(path, "utf8"));
  }
  return { folder: top, files };
}

/** No file of the bundle holds any spelling of any secret. */
export function assertNoSecret(files: Map<string, string>, secrets: Record<string, string>): void {
  for (const [name, secret] of Object.entries(secrets)) {
    for (const spelling of spellingsOf(secret)) {
      for (const [path, text] of files) assert.ok(!text.includes(spelling), `${path} holds the ${name} (${JSON.stringify(spelling.slice(0, 24))}…)`);
    }
  }
}
