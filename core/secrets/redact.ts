export const REDACTED = "[redacted]";

/** Paths of the draft's secret fields: never in events, reports, logs or error messages (SPEC §3). */
export const SECRET_FIELDS = ["cluster.joinToken", "admin.passwordHash"] as const;
/** The same fields as node.yaml spells them (snake_case). */
export const SECRET_NODE_YAML_FIELDS = ["cluster.join_token", "admin.password_hash"] as const;

function redactPath(value: unknown, keys: readonly string[]): unknown {
  const [key, ...rest] = keys;
  if (key === undefined || typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return value;
  const object = value as Record<string, unknown>;
  return { ...object, [key]: rest.length === 0 ? REDACTED : redactPath(object[key], rest) };
}

/** A copy of a draft with its secrets replaced by "[redacted]" where present; node.yaml's snake_case spelling too. */
export function redactDraft(draft: unknown): unknown {
  return [...SECRET_FIELDS, ...SECRET_NODE_YAML_FIELDS].map((field) => field.split(".")).reduce(redactPath, draft);
}

/** Shorter pieces are left alone: redacting every "abc" of every log line would hide more than the secret. */
const MIN_LENGTH = 4;

/** Replaces every current secret value (install code, join token, password hash) in free text: logs, firstboot output, errors. */
export interface Redactor {
  text(value: string): string;
}

/**
 * The ways a secret's text shows in output: as is; as a file holds it (a lone surrogate is written as U+FFFD);
 * each of its lines alone, since firstboot's output is read line by line; each of those JSON-escaped, as log
 * lines and event files hold them; and the whole in base64 and base64url, padded or not, as a firstboot that
 * passes it on may print it.
 */
export function spellings(text: string): string[] {
  const whole = [text, Buffer.from(text, "utf8").toString("utf8")];
  const lines = whole.flatMap((t) => [t, ...t.split(/\r\n|\r|\n/).map((line) => line.trim())]);
  const bytes = Buffer.from(text, "utf8");
  const encoded = [bytes.toString("base64"), bytes.toString("base64url")].flatMap((b64) => [b64, b64.replace(/=+$/, "")]);
  return [...new Set([...lines.flatMap((t) => [t, JSON.stringify(t).slice(1, -1)]), ...encoded])];
}

export function createRedactor(secrets: () => readonly (string | undefined)[]): Redactor {
  let seen: readonly (string | undefined)[] = [];
  let ordered: string[] = [];
  return {
    text(value) {
      const current = secrets();
      if (current.length !== seen.length || current.some((secret, i) => secret !== seen[i])) {
        seen = current;
        // Longest first: a secret inside a longer one (the raw token inside its quoted spelling) must not cut that one apart.
        ordered = [...new Set(current)].filter((s): s is string => s !== undefined && s.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
      }
      let out = value;
      for (const secret of ordered) {
        if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
      }
      return out;
    },
  };
}
