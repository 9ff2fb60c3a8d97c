import { parseJoinToken } from "../cluster/join-token.ts";
import { nodeYamlToDraft, parseYamlDocument } from "../config/index.ts";
import { draftSecrets, keySpellings, PEM_PRIVATE_KEY, spellings } from "../secrets/index.ts";
import type { DraftRecord } from "../state/records.ts";
import { notWrittenBecause } from "../fs/storage-error.ts";
import { readCapped, SECRET_CAP } from "./state.ts";

/** A secret's value and what the marker that replaces it calls it. */
export interface NamedSecret {
  name: string;
  value: string;
}

/** Replaces every spelling of every secret by a marker naming it: "[redacted: join token]". */
export interface BundleRedactor {
  text(value: string): string;
}

/** Shorter pieces are left alone, as the service's own redactor does: hiding every "abc" would hide more than the secret. */
const MIN_LENGTH = 4;

export const marker = (name: string): string => `[redacted: ${name}]`;

/** Of a base64 spelling inside a longer text: the characters no byte around the secret changes, at each of the three offsets. */
function base64Within(bytes: Buffer, encoding: "base64" | "base64url"): string[] {
  return [0, 1, 2].flatMap((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(3)]).toString(encoding);
    const first = Math.ceil(offset / 3) * 4;
    const last = Math.floor((offset + bytes.length) / 3) * 4;
    return last - first >= 16 ? [encoded.slice(first, last)] : [];
  });
}

/**
 * The ways a secret can show in a file of the bundle: the service's own spellings (as is, each line alone,
 * JSON-escaped, base64), YAML single-quoted, a PEM body joined on one line; and as a firstboot passing it on may
 * print it: URL-encoded, in hex, in base64 as part of a longer text.
 */
function bundleSpellings(value: string): string[] {
  if (value.includes("\n")) {
    // A PEM key: the service's own spellings of it; the file in base64 on one line (`base64 -w0 tls.key`), its last
    // newline or not; and each of those URL-encoded (`curl --data-urlencode key@tls.key`): a body line's + and / are
    // %2B and %2F there.
    const pem = [value, value.trimEnd()].flatMap((text) => base64Within(Buffer.from(text, "utf8"), "base64"));
    const own = keySpellings(value);
    return [...own, ...pem, ...own.flatMap(urlEncoded)];
  }
  const bytes = Buffer.from(value, "utf8");
  const hex = bytes.toString("hex");
  return [
    ...spellings(value),
    value.replaceAll("'", "''"),
    ...urlEncoded(value),
    hex,
    hex.toUpperCase(),
    ...base64Within(bytes, "base64"),
    ...base64Within(bytes, "base64url"),
    ...asBytes(value),
  ];
}

/** A text URL-encoded, its escapes in upper case and in lower. */
function urlEncoded(text: string): string[] {
  // As UTF-8 has it (a lone surrogate is U+FFFD there): encodeURIComponent throws on one.
  const url = encodeURIComponent(Buffer.from(text, "utf8").toString("utf8"));
  return [url, url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())];
}

/**
 * A secret that is base64url (a join token's, the cluster's) as the bytes it stands for, as a firstboot deriving a key
 * from it may print them: in hex, in standard base64; and itself in standard base64's alphabet.
 */
function asBytes(value: string): string[] {
  if (!/^[A-Za-z0-9_-]{22,}$/.test(value)) return [];
  const bytes = Buffer.from(value, "base64url");
  const hex = bytes.toString("hex");
  const standard = bytes.toString("base64");
  return [hex, hex.toUpperCase(), standard, standard.replace(/=+$/, ""), value.replaceAll("-", "+").replaceAll("_", "/")];
}

/** A quoted spelling's marker, in the same quotes: a JSON string whose value is the secret stays a JSON string. */
function quotedLike(spelling: string, replacement: string): string {
  const quote = /^(\\?["'])[^]*\1$/.exec(spelling)?.[1];
  return quote && spelling.length > 2 * quote.length ? `${quote}${replacement}${quote}` : replacement;
}

/**
 * Between two characters of an install code: a few separators, a tab, newline or CR JSON-escaped as an event line holds
 * them (`\t`: its letter is no separator), a terminal's colour codes (raw, or JSON-escaped: `\u001b[1m`; a coloured
 * dash between two resets is five), or separators URL-encoded (`%20`, `%2D`, and `%2520` encoded twice): the code typed
 * with blanks into a URL or a form.
 */
const CODE_GAP = String.raw`(?:[^A-Za-z0-9\n]|\\[nrt]|(?:\u001b|\\u001[bB])\[[0-9;]*[A-Za-z]|%(?:25)?[0-9A-Fa-f]{2}){0,6}`;

/** Bytes of a secret this many or more, in a run of base64 decoded, are taken for it. */
const DECODED_PIECE = 12;
/** The characters of base64's two alphabets: 1 a lower-case letter, 2 an upper-case one, 3 any other. */
const BASE64_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  BASE64_CLASS[c] = /[a-z]/.test(ch) ? 1 : /[A-Z]/.test(ch) ? 2 : /[0-9+/_-]/.test(ch) ? 3 : 0;
}

/**
 * Each run of base64's characters long enough to hold DECODED_PIECE bytes, and of both cases (base64 of text has
 * both in any 16 characters; a path, a hex digest or a word in one case is not looked into), replaced by what
 * `replacement` says, when it says. One pass over the text: a pattern with a lower bound on its length went over each
 * short run again from each of its characters.
 */
function replaceBase64Runs(text: string, replacement: (run: string) => string | undefined): string {
  let out = "";
  let copied = 0;
  let start = 0;
  let cases = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    const kind = c < 128 ? BASE64_CLASS[c]! : 0;
    if (kind !== 0) {
      cases |= kind === 3 ? 0 : kind;
      continue;
    }
    if (cases === 3 && i - start >= 16) {
      const end = text.startsWith("==", i) ? i + 2 : text.startsWith("=", i) ? i + 1 : i;
      const replaced = replacement(text.slice(start, end));
      if (replaced !== undefined) {
        out += text.slice(copied, start) + replaced;
        copied = end;
      }
    }
    start = i + 1;
    cases = 0;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Pieces of a long secret this long or longer are found wherever they show (a line folded away the rest of it): a
 * secret folded at any width (`fold -w 10`, one event a line) keeps under this many characters on a line. Of a random
 * secret's alphabet, 8 characters are found by chance once in some 10^14.
 */
const PIECE = 8;
/** A secret this long or longer is looked for in pieces: a join secret, the cluster's, a password hash. */
const PIECED = 24;

/**
 * An install code's characters in any case, with any dashes and blanks between them ("j3x2 34c6 tyh9", "J3X234C6TYH9",
 * "J3 X2 34 C6"): the API takes each as the code, as it drops those before comparing.
 */
function codePattern(value: string): RegExp | undefined {
  if (!/^[A-Z0-9]{4}(?:-[A-Z0-9]{4})+$/.test(value)) return undefined;
  return new RegExp([...value.replaceAll("-", "")].join(CODE_GAP), "gi");
}

/** An install code as the API also takes it (no dashes, lower case): each spelled, in base64 say, as the code is. */
function codeForms(secret: NamedSecret): NamedSecret[] {
  if (!codePattern(secret.value)) return [secret];
  const bare = secret.value.replaceAll("-", "");
  return [secret.value, bare, secret.value.toLowerCase(), bare.toLowerCase()].map((value) => ({ name: secret.name, value }));
}

export function createBundleRedactor(given: readonly NamedSecret[]): BundleRedactor {
  const secrets = given.flatMap(codeForms);
  const byText = new Map<string, string>();
  const codes: Array<[RegExp, string]> = [];
  const pieces = new Map<string, { secret: string; at: number; replacement: string }>();
  for (const { name, value } of secrets) {
    for (const text of bundleSpellings(value)) if (text.length >= MIN_LENGTH && !byText.has(text)) byText.set(text, quotedLike(text, marker(name)));
    const code = codePattern(value);
    if (code) codes.push([code, marker(name)]);
    // Long one-line secrets with no public part (a join token's fingerprint is public: its secret part is named alone).
    if (value.length >= PIECED && !/[\n:]/.test(value)) {
      for (let at = 0; at + PIECE <= value.length; at += 1) {
        const piece = value.slice(at, at + PIECE);
        if (!pieces.has(piece)) pieces.set(piece, { secret: value, at, replacement: marker(name) });
      }
    }
  }
  // Longest first: a secret inside a longer one (the token's secret part inside the token) must not cut that one apart.
  const ordered = [...byText].sort(([a], [b]) => b.length - a.length);
  const mayHold = literalsFinder([...byText.keys(), ...pieces.keys()]);
  // Each run of base64 decoded, for a piece of a secret's bytes: a file printed in base64 wrapped over lines
  // (`base64 node.yaml`) holds each secret split over two or three of them, where no spelling of it is whole.
  const decodedPieces = new Map<string, string>();
  for (const { name, value } of secrets) {
    // A PEM key's BEGIN and END lines are any key's (a public one's too): only its body marks it.
    const own = value.includes("\n") ? value.split("\n").filter((line) => !line.startsWith("-----")).join("\n") : value;
    const bytes = Buffer.from(own, "utf8").toString("latin1");
    for (let at = 0; at + DECODED_PIECE <= bytes.length; at += 1) {
      const piece = bytes.slice(at, at + DECODED_PIECE);
      if (!decodedPieces.has(piece)) decodedPieces.set(piece, marker(name));
    }
  }
  const inDecoded = literalsFinder([...decodedPieces.keys()]);
  const decodedSecret = (run: string): string | undefined => {
    for (let skip = 0; skip < 4; skip++) {
      const found = inDecoded(Buffer.from(run.slice(skip), "base64").toString("latin1"));
      if (found !== undefined) return decodedPieces.get(found);
    }
    return undefined;
  };
  return {
    text(value) {
      let out = value;
      // Most lines hold no secret: one pass over the text tells, where a search for each of some hundred spellings
      // and pieces took 1.9 µs a line (a bundle reads its 217 MiB of events twice or three times).
      if (mayHold(value) !== undefined) {
        for (const [text, replacement] of ordered) if (out.includes(text)) out = out.replaceAll(text, replacement);
        out = replacePieces(out, pieces);
      }
      for (const [pattern, replacement] of codes) out = out.replace(pattern, replacement);
      if (decodedPieces.size > 0) out = replaceBase64Runs(out, decodedSecret);
      return out.replace(JOIN_TOKEN_SHAPE, marker("join token")).replace(CRYPT_HASH_SHAPE, marker("password hash")).replace(PEM_PRIVATE_KEY, marker("private key"));
    },
  };
}

/**
 * The first of `literals` (each two characters or more) a text holds: each position's first two characters looked up
 * in a table of the literals by their first two, and only those that may start there compared.
 */
function literalsFinder(literals: readonly string[]): (text: string) => string | undefined {
  const pair = (a: number, b: number) => ((a << 8) ^ b) & 0xffff;
  const byPair: Array<string[] | undefined> = new Array(0x10000);
  for (const literal of literals) {
    const key = pair(literal.charCodeAt(0), literal.charCodeAt(1));
    (byPair[key] ??= []).push(literal);
  }
  return (text) => {
    let next = text.charCodeAt(0);
    for (let i = 0; i + 1 < text.length; i++) {
      const at = next;
      next = text.charCodeAt(i + 1);
      const candidates = byPair[pair(at, next)];
      if (candidates === undefined) continue;
      for (const literal of candidates) if (text.startsWith(literal, i)) return literal;
    }
    return undefined;
  };
}

/** Each piece of a long secret in `text`, and the whole run the text shares with that secret around it, replaced. */
function replacePieces(text: string, pieces: ReadonlyMap<string, { secret: string; at: number; replacement: string }>): string {
  let out = text;
  for (const [piece, found] of pieces) {
    for (let hit = out.indexOf(piece); hit >= 0; hit = out.indexOf(piece, hit)) {
      // The whole run the text shares with the secret around the piece.
      let start = hit;
      let end = hit + PIECE;
      for (let s = found.at; start > 0 && s > 0 && out[start - 1] === found.secret[s - 1]; s--) start--;
      for (let s = found.at + PIECE; end < out.length && s < found.secret.length && out[end] === found.secret[s]; s++) end++;
      out = out.slice(0, start) + found.replacement + out.slice(end);
      hit = start + found.replacement.length;
    }
  }
  return out;
}

/** A join token or a crypt hash by its shape (crypt(5)'s formats): an old one, or one of a store that does not parse, is not known by value. */
const JOIN_TOKEN_SHAPE = /STRATUM1:[0-9A-Fa-f]{64}:[A-Za-z0-9_-]{16,}/g;
const CRYPT_HASH_SHAPE = new RegExp(
  [
    String.raw`\$(?:1|5|6)\$(?:rounds=\d+\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{22,86}`,
    String.raw`\$2[abxy]?\$\d\d\$[./0-9A-Za-z]{53}`,
    String.raw`\$g?y\$[./0-9A-Za-z]+\$[./0-9A-Za-z]*\$[./0-9A-Za-z]{43}`,
    String.raw`\$7\$[./0-9A-Za-z]{11,}\$[./0-9A-Za-z]{43}`,
  ].join("|"),
  "g",
);

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** The join token (and its secret part, which a firstboot may print alone) and the password hash of a draft's config. */
function configSecrets(config: unknown): NamedSecret[] {
  const draft = config as { cluster?: { joinToken?: unknown }; admin?: { passwordHash?: unknown } } | null;
  const token = text(draft?.cluster?.joinToken);
  const parsed = token === undefined ? undefined : parseJoinToken(token);
  const hash = text(draft?.admin?.passwordHash);
  return [
    ...(token ? [{ name: "join token", value: token }] : []),
    ...(parsed?.ok ? [{ name: "join token secret", value: parsed.value.secret }] : []),
    ...(hash ? [{ name: "password hash", value: hash }] : []),
  ];
}

/**
 * A draft's secrets, named; and every other spelling the service's redactor knows for them (a folded scalar's
 * lines, a quoted scalar as written, the key's line of a node.yaml that does not parse), named after the secret
 * it is part of.
 */
export function draftNamedSecrets(record: DraftRecord): NamedSecret[] {
  let config: unknown = record.source === "structured" ? record.config : undefined;
  if (record.source === "yaml") {
    const parsed = parseYamlDocument(record.yaml);
    if (parsed.ok) config = nodeYamlToDraft(parsed.parsed.value);
  }
  const named = configSecrets(config);
  const rest = draftSecrets(record).map((value) => ({ name: ownerOf(value, named), value }));
  return [...named, ...rest];
}

/** The named secret a spelling shows most of (the more specific one on a tie: the token's secret part alone is that, not the token). */
function ownerOf(value: string, named: readonly NamedSecret[]): string {
  let best: { name: string; run: number; length: number } | undefined;
  for (const secret of named) {
    const run = longestCommonRun(value, secret.value);
    if (!best || run > best.run || (run === best.run && secret.value.length < best.length)) best = { name: secret.name, run, length: secret.value.length };
  }
  return best && best.run >= MIN_LENGTH ? best.name : "node.yaml secret";
}

/** The length of the longest run of characters two texts share (texts of a few hundred characters: node.yaml secrets). */
function longestCommonRun(a: string, b: string): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  let longest = 0;
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) longest = Math.max(longest, (current[j] = previous[j - 1]! + 1));
    }
    previous = current;
  }
  return longest;
}

/** The values a store file holds under a secret's key, when it cannot be parsed: JSON's keys, and node.yaml's within a raw draft. */
export function secretsInBrokenStore(raw: string): NamedSecret[] {
  const found: NamedSecret[] = [];
  const names: Record<string, string> = { joinToken: "join token", passwordHash: "password hash", secret: "cluster secret" };
  for (const [, key = "", value = ""] of raw.matchAll(/"(joinToken|passwordHash|secret)"\s*:\s*"((?:[^"\\]|\\.)*)/g)) {
    found.push({ name: names[key]!, value }, { name: names[key]!, value: unescapeJson(value) });
    // Folded over lines by the damage (none of these holds a blank): the secret itself; and a join token's secret part,
    // which a firstboot may print alone.
    const joined = unescapeJson(value).replace(/\s+/g, "");
    found.push(...(key === "joinToken" ? configSecrets({ cluster: { joinToken: joined } }) : [{ name: names[key]!, value: joined }]));
  }
  for (const [, yaml = ""] of raw.matchAll(/"yaml"\s*:\s*"((?:[^"\\]|\\.)*)/g)) {
    const record: DraftRecord = { source: "yaml", yaml: unescapeJson(yaml), revision: 0, updatedAt: null };
    found.push(...draftNamedSecrets(record));
  }
  return found.filter((secret) => secret.value !== "[redacted]");
}

/** A JSON string's body, maybe cut short by the break that made the file unreadable. */
function unescapeJson(body: string): string {
  for (let end = body.length; end > 0 && end > body.length - 6; end--) {
    try {
      return JSON.parse(`"${body.slice(0, end)}"`) as string;
    } catch {
      // A cut escape sequence: try a little shorter.
    }
  }
  return body;
}

/**
 * The private key of a certificate the operator gave (--tls-key): not in the state dir, yet never in a bundle. A key
 * file that cannot be read is in `unreadSecrets` (for the manifest: its key is then redacted by its shape alone); both
 * as the bundle's input takes them.
 */
export async function operatorSecrets(tlsKey: string | undefined): Promise<{ secrets: NamedSecret[]; unreadSecrets: string[] }> {
  if (!tlsKey) return { secrets: [], unreadSecrets: [] };
  const key = await readCapped(tlsKey, SECRET_CAP).catch((err: NodeJS.ErrnoException) => ({ failed: notWrittenBecause(err) }));
  const whose = `${tlsKey} (the operator's TLS private key, --tls-key)`;
  if (key === undefined) return { secrets: [], unreadSecrets: [`${whose} is gone`] };
  if ("failed" in key) return { secrets: [], unreadSecrets: [`${whose} cannot be read (${key.failed})`] };
  if (key.notAFile) return { secrets: [], unreadSecrets: [`${whose} is ${key.notAFile}, not a file`] };
  return { secrets: [{ name: "TLS private key", value: key.text }], unreadSecrets: [] };
}
