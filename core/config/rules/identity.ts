import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { nearest, quoted } from "../messages.ts";
import { hostnameProblem } from "../net.ts";
import { itemsOf } from "../paths.ts";
import type { PathError, Rule } from "../schema.ts";

export const validHostname: Rule = (draft) => {
  if (draft.hostname === undefined) return [];
  const problem = hostnameProblem(draft.hostname);
  return problem ? [{ path: ["hostname"], message: `hostname ${quoted(draft.hostname)} is not a valid RFC 1123 hostname: ${problem}` }] : [];
};

let zones: Set<string> | undefined;

function ianaZones(): Set<string> {
  zones ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
  return zones;
}

// ICU lists some zones by their older names (Asia/Calcutta); the current IANA names (Asia/Kolkata) are valid too.
function isZoneAlias(name: string): boolean {
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The system's time zone database (glibc's TZDIR, else /usr/share/zoneinfo), read once per folder. */
let tzdata: { dir: string; zones: Set<string> } | undefined;

/** A tz database's tzdata.zi is ≈ 110 KB: a larger one is no tz database, and is not read. */
const TZDATA_MAX_BYTES = 1024 * 1024;

/**
 * tzdata.zi's text when it is a plain file of a tz database's size, else none. Opened without blocking and judged
 * before it is read: a FIFO or a device there (TZDIR is the service's environment's) would block the one thread.
 */
function readTzdata(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > TZDATA_MAX_BYTES) return "";
    const bytes = Buffer.alloc(stats.size);
    let read = 0;
    for (let n = 1; n > 0 && read < bytes.length; read += n) n = readSync(fd, bytes, read, bytes.length - read, read);
    return bytes.toString("latin1", 0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The names the system's tz database gives zones and links (tzdata.zi: `Z NAME …`, `L TARGET NAME`); none when it
 * has no tzdata.zi. Node's ICU can be years behind it: Debian 12's nodejs uses the system's ICU 72 (tz 2022e), which
 * does not know America/Ciudad_Juarez (2022g), while its tzdata package is kept current.
 */
function systemZones(): Set<string> {
  const dir = process.env.TZDIR || "/usr/share/zoneinfo";
  if (tzdata?.dir !== dir) {
    let text = "";
    try {
      text = readTzdata(join(dir, "tzdata.zi"));
    } catch {
      // No tz database on this system: ICU's names alone.
    }
    const zones = new Set<string>();
    for (const [, kind, a, b] of text.matchAll(/^([ZL]) +(\S+)(?: +(\S+))?/gm)) {
      const zone = kind === "Z" ? a : b;
      if (zone) zones.add(zone);
    }
    tzdata = { dir, zones };
  }
  return tzdata.zones;
}

export const validTimezone: Rule = (draft) => {
  const name = draft.timezone;
  if (name === undefined || ianaZones().has(name)) return [];
  const path = ["timezone"];
  const known = [...ianaZones()];
  const sameButCase = known.find((zone) => zone.toLowerCase() === name.toLowerCase());
  if (sameButCase) {
    return [{ path, message: `timezone ${quoted(name)} must be written ${sameButCase}: time zone names are case-sensitive`, hint: `write ${sameButCase}` }];
  }
  if (isZoneAlias(name) || systemZones().has(name)) return [];
  const close = nearest(name, known, (zone) => zone);
  const error: PathError = {
    path,
    message: `timezone ${quoted(name)} is not an IANA time zone name`,
    hint: close ? `did you mean ${close}?` : "use a name such as UTC, Europe/Berlin or America/New_York",
  };
  return [error];
};

const KEY_TYPES = [
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
];

type Problem = Omit<PathError, "path">;

/** The key type a public key blob names in its first length-prefixed field. */
function blobType(data: string): string | undefined {
  const blob = Buffer.from(data, "base64");
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  return 4 + length <= blob.length ? blob.subarray(4, 4 + length).toString("latin1") : undefined;
}

function keyProblem(entry: string): Problem | undefined {
  if (entry.includes("PRIVATE KEY")) {
    return { message: "is a private key: never share it; paste the public key instead (the line in the .pub file)" };
  }
  if (/[\r\n]/.test(entry.trim())) return { message: "spans several lines; give each key as its own entry, on one line" };
  const [type = "", data, ...rest] = entry.trim().split(/\s+/);
  if (type === "ssh-dss") {
    return { message: "is an ssh-dss (DSA) key, which current OpenSSH refuses", hint: "make an ed25519 key: ssh-keygen -t ed25519" };
  }
  if (!KEY_TYPES.includes(type)) {
    const later = rest.find((token) => KEY_TYPES.includes(token)) ?? (data && KEY_TYPES.includes(data) ? data : undefined);
    return {
      message: `does not start with an SSH key type (${KEY_TYPES.slice(0, 3).join(", ")}, …)`,
      hint: later ? `authorized_keys options are not accepted here; start the entry at ${later}` : "paste the whole line of the .pub file, e.g. ssh-ed25519 AAAA… you@laptop",
    };
  }
  if (data === undefined) return { message: `has no key data after ${type}` };
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) {
    return { message: `has key data after ${type} that is not valid base64; was it cut short or changed when copied?` };
  }
  const holds = blobType(data);
  if (holds !== type) {
    const what = holds && KEY_TYPES.includes(holds) ? `holds a ${holds} key` : "is not an SSH public key";
    return { message: `says ${type}, but its key data ${what}; was it cut short or pasted from another key?` };
  }
  return undefined;
}

export const validSshKeys: Rule = (draft, { names }) =>
  itemsOf(draft.admin?.sshAuthorizedKeys).flatMap(([i, entry]) => {
    const path = ["admin", "sshAuthorizedKeys", i];
    const problem = keyProblem(entry);
    return problem ? [{ path, message: `${names.field(path)} ${problem.message}`, hint: problem.hint }] : [];
  });

const SALT = "[./0-9A-Za-z]";

const SCHEMES: Array<{ prefix: RegExp; name: string; shape: RegExp }> = [
  { prefix: /^\$6\$/, name: "SHA-512 crypt ($6$)", shape: new RegExp(`^\\$6\\$(rounds=\\d+\\$)?${SALT}{1,16}\\$${SALT}{86}$`) },
  { prefix: /^\$5\$/, name: "SHA-256 crypt ($5$)", shape: new RegExp(`^\\$5\\$(rounds=\\d+\\$)?${SALT}{1,16}\\$${SALT}{43}$`) },
  { prefix: /^\$g?y\$/, name: "yescrypt ($y$)", shape: new RegExp(`^\\$g?y\\$${SALT}+\\$${SALT}*\\$${SALT}{43}$`) },
  { prefix: /^\$7\$/, name: "scrypt ($7$)", shape: new RegExp(`^\\$7\\$${SALT}{11,}\\$${SALT}{43}$`) },
  { prefix: /^\$2[aby]\$/, name: "bcrypt ($2b$)", shape: new RegExp(`^\\$2[aby]\\$\\d{2}\\$${SALT}{53}$`) },
];

const HOW = "make one with openssl passwd -6 or mkpasswd -m yescrypt";

// Never echo the value: it is a secret.
function hashProblem(hash: string): { message: string; hint?: string } | undefined {
  if (!hash.startsWith("$")) return { message: "is not a crypt hash; it looks like a plain password", hint: HOW };
  if (/^\$(1|apr1|md5)\$/.test(hash)) return { message: "is an MD5 crypt hash ($1$), which is too weak", hint: HOW };
  const scheme = SCHEMES.find((s) => s.prefix.test(hash));
  if (!scheme) return { message: "uses a crypt scheme this installer does not accept; use $6$, $5$, $y$ or $2b$", hint: HOW };
  if (scheme.shape.test(hash)) return undefined;
  return {
    message: `looks like a ${scheme.name} hash but is malformed: cut short or changed when copied?`,
    hint: "in a shell, put the hash in single quotes: inside double quotes $6$… is expanded",
  };
}

export const validPasswordHash: Rule = (draft, { names }) => {
  const hash = draft.admin?.passwordHash;
  if (hash === undefined) return [];
  const path = ["admin", "passwordHash"];
  const problem = hashProblem(hash);
  return problem ? [{ path, message: `${names.field(path)} ${problem.message}`, hint: problem.hint }] : [];
};
