import type { Rule } from "./rule.ts";

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
