import type { Redactor } from "../secrets/index.ts";
import { printableJson } from "./printable.ts";

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Who asked, when a log line comes from a request: plain data the HTTP layer hands the services. */
export interface Origin {
  requestId: string;
  /** The client's address, an IPv4 client seen by a dual-stack listener written as IPv4. */
  client: string;
}

/** syslog(3) priorities, as sd-daemon(3)'s `<N>` line prefixes spell them. */
const PRIORITY = { info: 6, warn: 4, error: 3 } as const;

interface LoggerOptions {
  write?: (line: string) => void;
  /** stderr is the journal's stream: each line starts with its `<N>` priority, which journald strips and keeps. */
  journal?: boolean;
  /** Also given each line (without its priority prefix): the state dir's copy of the log. */
  keep?: (line: string) => void;
}

/** One JSON line an event on stderr (the banner alone goes to stdout), secrets redacted. */
export function createLogger(redactor: Redactor, now: () => Date, { write = (line) => process.stderr.write(line), journal = false, keep }: LoggerOptions = {}): Logger {
  const emit = (level: keyof typeof PRIORITY) => (message: string, fields?: Record<string, unknown>) => {
    // Each text redacted before it is serialised, so the line stays JSON whatever the secret's spelling (quotes included).
    // Printable JSON: a control character or bidi override in a node's or a firstboot's text is escaped, as the
    // terminal that tails the log should see it.
    const line = `${printableJson({ time: now().toISOString(), level, message, ...fields }, (_key, value: unknown) => (typeof value === "string" ? redactor.text(value) : value))}\n`;
    write(journal ? `<${PRIORITY[level]}>${line}` : line);
    keep?.(line);
  };
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}
