import type { PathError } from "../schema.ts";
import { itemsOf, type Rule } from "./rule.ts";

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
