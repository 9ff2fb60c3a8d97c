export const REDACTED = "[redacted]";

/** Replaces every current secret value (install code, join token, password hash) in free text: logs, firstboot output, errors. */
export interface Redactor {
  text(value: string): string;
}

export function createRedactor(secrets: () => readonly (string | undefined)[]): Redactor {
  return {
    text(value) {
      let out = value;
      for (const secret of secrets()) {
        if (secret && secret.length >= 4 && out.includes(secret)) out = out.replaceAll(secret, REDACTED);
      }
      return out;
    },
  };
}
