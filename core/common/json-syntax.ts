/** Where a text stops being JSON (RFC 8259), and why: an offset in UTF-16 code units and a message that quotes at most one character. */
export interface JsonSyntaxError {
  message: string;
  offset: number;
  /** With `uniqueKeys`: the key an object holds twice (decoded), at `offset`. */
  duplicateKey?: string;
}

export const ENDS_EARLY = 'it ends too early (a closing }, ] or " is missing)';

const LITERALS: Record<string, string> = { t: "true", f: "false", n: "null" };

/**
 * JSON.parse's own complaint is V8's wording, which changes between versions and quotes the text around the
 * error (it may hold a secret); this scanner finds the place itself. Iterative: a body may nest thousands deep.
 * Undefined for a text that is JSON.
 */
export function jsonSyntaxError(text: string, options: { uniqueKeys?: boolean } = {}): JsonSyntaxError | undefined {
  let at = 0;
  /** With uniqueKeys: the keys of each object open, innermost last (JSON.parse keeps a key's last value, unsaid). */
  const keys: Set<string>[] | undefined = options.uniqueKeys ? [] : undefined;
  const fail = (message: string): never => {
    throw { message, offset: at } satisfies JsonSyntaxError;
  };
  const is = (pattern: RegExp) => pattern.test(text[at] ?? "");
  // By character code, not a pattern: every JSON draft body is scanned (for a key given twice), up to 1 MiB of it.
  const skipSpace = () => {
    for (let c = text.charCodeAt(at); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(at)) at++;
  };
  const next = () => {
    skipSpace();
    return text[at] ?? fail(ENDS_EARLY);
  };
  const unexpected = () => fail(`Unexpected token '${String.fromCodePoint(text.codePointAt(at)!)}'`);
  const isDigit = () => {
    const c = text.charCodeAt(at);
    return c >= 0x30 && c <= 0x39;
  };
  const digits = (message: string) => {
    if (!isDigit()) fail(message);
    while (isDigit()) at++;
  };

  const string = () => {
    for (;;) {
      const c = text[++at] ?? fail(ENDS_EARLY);
      if (c === '"') return at++;
      if (c < " ") fail("Bad control character in string literal");
      if (c !== "\\") continue;
      const escaped = text[++at] ?? fail(ENDS_EARLY);
      if (escaped !== "u") {
        if (!'"\\/bfnrt'.includes(escaped)) fail("Bad escaped character");
        continue;
      }
      for (let i = 0; i < 4; i++) {
        at++;
        if (at === text.length) fail(ENDS_EARLY);
        if (!is(/[\da-fA-F]/)) fail("Bad Unicode escape");
      }
    }
  };
  const number = () => {
    if (text[at] === "-") at++;
    if (text[at] === "0") {
      at++;
      if (is(/\d/)) fail("Unexpected number");
    } else digits("No number after minus sign");
    if (text[at] === ".") {
      at++;
      digits("Unterminated fractional number");
    }
    if (is(/[eE]/)) {
      at++;
      if (is(/[+-]/)) at++;
      digits("Exponent part is missing a number");
    }
  };
  const literal = (word: string) => {
    for (const c of word) {
      if (at === text.length) fail(ENDS_EARLY);
      if (text[at] !== c) unexpected();
      at++;
    }
  };
  const key = (message: string) => {
    if (next() !== '"') fail(message);
    const start = at;
    string();
    if (keys) {
      const literal = text.slice(start, at);
      // Decoded only when it holds an escape: "gate\u0077ay" is "gateway".
      const name = literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
      if (keys.at(-1)!.has(name)) throw { message: "a key given twice in one object", offset: start, duplicateKey: name } satisfies JsonSyntaxError;
      keys.at(-1)!.add(name);
    }
    if (next() !== ":") fail("Expected ':' after property name");
    at++;
  };

  const open: ("}" | "]")[] = [];
  try {
    for (;;) {
      const c = next();
      if (c === "{" || c === "[") {
        at++;
        const close = c === "{" ? "}" : "]";
        if (next() !== close) {
          open.push(close);
          if (close === "}") {
            keys?.push(new Set());
            key("Expected property name or '}'");
          }
          continue;
        }
        at++;
      } else if (c === '"') string();
      else if (is(/[-\d]/)) number();
      else if (LITERALS[c]) literal(LITERALS[c]);
      else unexpected();
      // A value ended: close what it ends, then a comma opens the next one.
      for (;;) {
        const close = open.at(-1);
        if (!close) {
          skipSpace();
          return at < text.length ? fail("Unexpected non-whitespace character after JSON") : undefined;
        }
        const d = next();
        if (d === close) {
          at++;
          open.pop();
          if (close === "}") keys?.pop();
          continue;
        }
        if (d !== ",") fail(`Expected ',' or '${close}' after ${close === "}" ? "property value" : "array element"}`);
        at++;
        if (close === "}") key("Expected double-quoted property name");
        break;
      }
    }
  } catch (failure) {
    // Only `fail` and a key given twice throw here: the scanner reads the text and nothing else.
    return failure as JsonSyntaxError;
  }
}

/** An offset's line and column (1-based), as an editor shows them. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const head = text.slice(0, offset);
  return { line: head.split("\n").length, column: offset - head.lastIndexOf("\n") };
}

/** Why a text that JSON.parse refused is not JSON, and where: for a file on disk, whose text may hold a secret. */
export function jsonProblem(text: string): string {
  const error = jsonSyntaxError(text);
  if (!error) return "JSON.parse refused it, though it is JSON";
  const { line, column } = lineColumnAt(text, error.offset);
  return `${error.message} at line ${line}, column ${column}`;
}
