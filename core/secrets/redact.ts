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

/**
 * A private key's own spellings, for a key the installer holds (its TLS key): every one `spellings` gives but its
 * BEGIN and END lines alone (any key of its kind has those: taking them for this one would cut another key's BEGIN
 * line away from its body, which then would show), and its body joined on one line.
 */
export function keySpellings(pem: string): string[] {
  const body = pem.split(/\r?\n/).filter((line) => line.trim() !== "" && !line.trim().startsWith("-----"));
  return [...spellings(pem).filter((text) => !/^-----(?:BEGIN|END) [A-Z0-9 ]*-----$/.test(text)), body.join("")];
}

/**
 * Any private key in PEM, even one the installer was never told of: its BEGIN line, the headers of an encrypted one
 * (Proc-Type, DEK-Info), its body to its END line, or, with none, as far as the text goes on like a body (a JSON
 * string holding it too: a line break there is `\n`).
 */
export const PEM_PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:(?:\s|\\[nr])+(?:Proc-Type|DEK-Info|Comment):[^\n\\"]*)*(?:[A-Za-z0-9+/=\s]|\\[nr])*(?:-----END [A-Z0-9 ]*PRIVATE KEY-----)?/g;

/** A key's BEGIN line, at the end of a line of output (a prefix before it may be a log's). */
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\s*$/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;
/** A line of a key's body: base64 (a long one unwrapped too), a header of an encrypted one, or blank. */
const KEY_BODY = /^\s*(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment):.*)?\s*$/;
/** The same after a prefix a firstboot put before each line it printed (a log's stamp, a step's name). */
const PREFIXED_HEADER = /(?:^|\s)(?:Proc-Type|DEK-Info|Comment):/;
const LAST_TOKEN = /(?:^|[^A-Za-z0-9+/=])([A-Za-z0-9+/]+={0,2})\s*$/;
/** A prefixed line is a key's when it ends in base64 this long, or follows a full line of it (a short last line). */
const PREFIXED_BODY = 16;
const FULL_LINE = 40;
/** An escape's introducers and terminators written out (`\u001b`), as an event's line holds them: judged as the characters. */
const WRITTEN_ESCAPE = /\\u00(1[bB]|07|9[bBcCdD])/g;
/**
 * A terminal's escape sequence (ECMA-48): a CSI (ESC [ or 8-bit 0x9b: colours, a cursor move), an OSC (ESC ] or 0x9d,
 * to BEL or ST: a title, a link), or ESC and its one final (tput sgr0's ESC ( B). Each part's characters are disjoint
 * from the next's and an OSC's text holds no control character: linear on any line.
 */
const TERMINAL_ESCAPE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0000-\u001f\u007f-\u009f]*(?:\u0007|\u001b\\|\u009c)|\u001b[ -/]*[0-~]/g;
/** Whether a line may hold an escape, raw or written out. */
const MAY_ESCAPE = /[\u001b\u009b\u009d]|\\u00(?:1[bB]|9[bBdD])/;

/**
 * For output read a line at a time (firstboot's, one pipe's; a bundle's events): whether each line is one of a private
 * key's own, printed a line at a time, after its BEGIN line (which `PEM_PRIVATE_KEY` takes): its body lines to its END
 * line, or, with no END line, to the first line that is no body line (that one shows). A prefix before each line (a
 * log's stamp) does not hide them. `undefined` is no line of output: it ends a key. `open` says a key's BEGIN line
 * came and its end did not yet: the next line may be one of its own.
 */
export interface KeyLines {
  ownLine(line: string | undefined): boolean;
  readonly open: boolean;
}

export function privateKeyLines(): KeyLines {
  let open = false;
  /** The last line of the key ended in a full line of base64: a short one may follow, its last. */
  let full = false;
  const own = (line: string): boolean => {
    if (KEY_END.test(line)) return false;
    if (KEY_BODY.test(line)) {
      full = line.trim().length >= FULL_LINE;
      return true;
    }
    if (PREFIXED_HEADER.test(line) || /\s$/.test(line)) return true;
    const token = LAST_TOKEN.exec(line)?.[1];
    if (token === undefined || (token.length < PREFIXED_BODY && !full)) return false;
    full = token.length >= FULL_LINE;
    return true;
  };
  return {
    get open() {
      return open;
    },
    ownLine(given) {
      // A key a firstboot prints in colour is as much a key: its lines are judged without the escapes.
      const line = given !== undefined && MAY_ESCAPE.test(given) ? given.replace(WRITTEN_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(TERMINAL_ESCAPE, "") : given;
      if (open) {
        if (line !== undefined && own(line)) return true;
        open = false;
      }
      if (line !== undefined && line.includes("PRIVATE KEY-----") && KEY_BEGIN.test(line)) {
        open = true;
        full = false;
      }
      return false;
    },
  };
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
      // A key by its shape first: a secret's spelling inside it (a known key's line) would cut it apart.
      let out = value.includes("PRIVATE KEY-----") ? value.replace(PEM_PRIVATE_KEY, REDACTED) : value;
      for (const secret of ordered) {
        if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
      }
      return out;
    },
  };
}
