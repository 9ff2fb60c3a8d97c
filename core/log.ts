import type { Redactor } from "./secrets/index.ts";

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** JSON lines on stderr (the banner alone goes to stdout), secrets redacted. */
export function createLogger(redactor: Redactor, now: () => Date, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    write(`${redactor.text(JSON.stringify({ time: now().toISOString(), level, message, ...fields }))}\n`);
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}
