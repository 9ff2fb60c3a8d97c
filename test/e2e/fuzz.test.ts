import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import YAML from "yaml";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";
import { harness, httpsRaw, tempDir, untilNoBlockers, waitFor, type Reply, type RunningInstaller } from "../helpers/installer.ts";
import { refusingServer } from "../helpers/refusing-server.ts";

/** Samples per property = RUNS × a small factor; FUZZ_RUNS=500 for a long run, FUZZ_SEED to replay one. */
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 12));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const LIMIT = 1024 * 1024;
const ANSWER_WITHIN_MS = 15_000;

interface Target {
  method: string;
  path: string;
  writesDraft?: boolean;
}

const PUT_CONFIG: Target = { method: "PUT", path: "/config", writesDraft: true };
const PATCH_CONFIG: Target = { method: "PATCH", path: "/config", writesDraft: true };
const VALIDATE: Target = { method: "POST", path: "/config/validate" };
const INSTALL: Target = { method: "POST", path: "/install" };
const RECHECK: Target = { method: "POST", path: "/install/recheck-readiness" };
const EVENTS: Target = { method: "GET", path: "/install/events" };
const VERDICT: Target = { method: "GET", path: "/install/verdict" };
const REPORT: Target = { method: "GET", path: "/install/report" };
const BODY_TARGETS = [PUT_CONFIG, PATCH_CONFIG, VALIDATE, INSTALL, RECHECK];

interface Sample {
  family: string;
  target: Target;
  query?: string;
  contentType?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Sent from another loopback address: its wrong codes lock out only that address. */
  from?: string;
}

const tried = new Map<string, Map<string, number>>();
const lab = harness();
/** The cloud's readiness URL where nothing answers: the install waits at readiness. */
const unreachable = await refusingServer();
lab.defer(() => unreachable.close());

after(() => {
  console.log(`fuzz: requests tried per endpoint and input family (FUZZ_RUNS=${RUNS})`);
  for (const [endpoint, families] of [...tried].sort(([a], [b]) => a.localeCompare(b))) {
    const total = [...families.values()].reduce((a, b) => a + b, 0);
    const detail = [...families].map(([family, n]) => `${family} ${n}`).join(", ");
    console.log(`  ${endpoint.padEnd(44)} ${String(total).padStart(5)}  (${detail})`);
  }
});

function count(sample: Sample): void {
  const endpoint = `${sample.target.method} /v1/installer${sample.target.path}`;
  const families = tried.get(endpoint) ?? new Map<string, number>();
  families.set(sample.family, (families.get(sample.family) ?? 0) + 1);
  tried.set(endpoint, families);
}

function preview(body: string | Buffer | undefined): string {
  if (body === undefined) return "no body";
  const text = typeof body === "string" ? body : body.toString("latin1");
  return `${Buffer.byteLength(body)} bytes: ${JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text)}`;
}

function describeSample(sample: Sample): string {
  const headers = Object.entries(sample.headers ?? {}).map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}…(${v.length})` : v}`);
  return [
    `${sample.target.method} /v1/installer${sample.target.path}${sample.query ?? ""} [${sample.family}]`,
    `content-type ${sample.contentType === undefined ? "(none)" : JSON.stringify(sample.contentType)}`,
    ...(headers.length > 8 ? [`${headers.length} extra headers`] : headers),
    ...(sample.from ? [`from ${sample.from}`] : []),
    preview(sample.body),
  ].join(" | ");
}

/** fast-check prints counterexamples with this; a 1 MiB body stays a one-line summary. */
function printable(sample: Sample): Sample {
  return Object.assign(sample, { [fc.toStringMethod]: () => describeSample(sample) });
}

function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function base(installer: RunningInstaller): string {
  return `https://127.0.0.1:${installer.port}/v1/installer`;
}

async function send(installer: RunningInstaller, sample: Sample): Promise<Reply> {
  count(sample);
  const what = describeSample(sample);
  const headers = { authorization: `Bearer ${installer.code}`, ...sample.headers };
  const call = httpsRaw(`${base(installer)}${sample.target.path}${sample.query ?? ""}`, {
    method: sample.target.method,
    headers,
    body: sample.body,
    contentType: sample.contentType,
    localAddress: sample.from,
  });
  const reply = await within(ANSWER_WITHIN_MS, what, call).catch((err: Error) => {
    const exit = installer.proc.exitCode ?? installer.proc.signalCode;
    assert.fail(`${what}\n→ no answer: ${err.message}${exit === null ? "" : `; the installer exited (${exit})`}`);
  });
  assertAnswer(reply, what);
  return reply;
}

function assertAnswer(reply: Reply, what: string): void {
  const shown = `${what}\n→ ${reply.status} ${reply.headers["content-type"] ?? ""} ${reply.text.slice(0, 400)}`;
  assert.ok(reply.status >= 200 && reply.status < 500, shown);
  if (reply.status < 300) return;
  assert.equal(typeof reply.json?.code, "string", shown);
  assertProblem(reply, reply.status, reply.json.code, { what: shown });
}

async function storedDraft(installer: RunningInstaller): Promise<{ etag: string; body: string }> {
  const reply = await httpsRaw(`${base(installer)}/config`, { code: installer.code });
  assert.equal(reply.status, 200, `GET /config → ${reply.status} ${reply.text.slice(0, 400)}`);
  return { etag: String(reply.headers.etag), body: reply.text };
}

async function attemptCount(installer: RunningInstaller): Promise<number> {
  const reply = await httpsRaw(`${base(installer)}/install/attempts`, { code: installer.code });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.attempts.length;
}

async function assertAlive(installer: RunningInstaller): Promise<void> {
  assert.equal(installer.proc.exitCode, null, `the installer exited; stderr: ${installer.output().stderr.slice(-2000)}`);
  assert.equal(installer.proc.signalCode, null);
  const health = await httpsRaw(`https://127.0.0.1:${installer.port}/healthz`);
  assert.equal(health.status, 200);
}

interface FuzzOptions {
  /** Tried first, whatever the seed. */
  examples?: Sample[];
  /** A further property of each reply. */
  expect?: (sample: Sample, reply: Reply) => void;
}

/**
 * Every sample: no 5xx, a problem+json for every refusal, and a draft that only a
 * successful PUT/PATCH changes; no attempt is started by any of them.
 */
async function fuzz(installer: RunningInstaller, samples: fc.Arbitrary<Sample>, numRuns: number, { examples = [], expect }: FuzzOptions = {}): Promise<void> {
  let draft = await storedDraft(installer);
  const attempts = await attemptCount(installer);
  await fc.assert(
    fc.asyncProperty(samples.map(printable), async (sample) => {
      const reply = await send(installer, sample);
      expect?.(sample, reply);
      const now = await storedDraft(installer);
      if (!(sample.target.writesDraft && reply.status < 300)) {
        assert.deepEqual(now, draft, `${describeSample(sample)}\n→ ${reply.status}, yet the stored draft changed`);
      }
      draft = now;
    }),
    { numRuns, seed: SEED, endOnFailure: true, examples: examples.map((e) => [printable(e)]) },
  );
  assert.equal(await attemptCount(installer), attempts, "no fuzzed request started an attempt");
  await assertAlive(installer);
}

async function start(args: string[] = []): Promise<RunningInstaller> {
  const folder = await tempDir("stratum-fuzz-");
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    args: ["--node-yaml", join(folder, "etc/node.yaml"), "--firstboot", "/bin/true", "--readiness-url", unreachable.url("https", "/v1/readiness"), "--readiness-interval", "0.2", ...args],
  });
  await untilNoBlockers(installer);
  return installer;
}

// ---- inputs ----

/** The sample node.yaml with optional fields in flow and block style: more for the mutations to work on. */
const NODE_YAML = VALID_NODE_YAML.replace("hostname: node-01\n", "hostname: node-01\ntimezone: Europe/Berlin\n").replace(
  "  gateway: 10.20.0.1\n",
  "  gateway: 10.20.0.1\n  dns: [10.20.0.2]\n  floating_ip_cidrs:\n    - 203.0.113.0/24\n",
);
const DRAFT_JSON = JSON.stringify(VALID_DRAFT);

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"];
const YAML_TYPES = ["application/yaml", "text/yaml", "application/x-yaml", "text/x-yaml", "application/yaml; charset=utf-8", "TEXT/YAML"];
const ODD_TYPES = [
  "", ";", "*/*", "application/*", "text/plain", "text/html", "application/xml", "application/octet-stream", "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x", "application/problem+json", "application/jsonx", "json", "yaml", "application/json; charset=utf-16",
  "application/json, application/yaml", "text/yaml; charset=latin1", "application/vnd.stratum+json", "application/json;;;", "a".repeat(2000),
];

const DRAFT_PATHS: (string | number)[][] = [
  ["mode"], ["hostname"], ["timezone"], ["network"], ["network", "interface"], ["network", "address"], ["network", "gateway"],
  ["network", "dns"], ["network", "dns", 0], ["network", "ntp"], ["network", "vip"], ["network", "floatingIpCidrs"], ["network", "floatingIpCidrs", 1],
  ["storage"], ["storage", "osdDevices"], ["storage", "osdDevices", 0], ["cluster"], ["cluster", "name"], ["cluster", "joinAddress"],
  ["cluster", "joinToken"], ["admin"], ["admin", "sshAuthorizedKeys"], ["admin", "sshAuthorizedKeys", 0], ["admin", "passwordHash"],
  ["__proto__"], ["constructor"], ["hostnme"], ["network", "__proto__", "polluted"],
];
const ODD_STRINGS = [
  "", " ", "\u0000", "\t", "node-01\n", "a".repeat(300), "10.20.0.11/33", "::1", "999.1.1.1", "10.20.0.0/0", "$6$", "${jndi:x}",
  "../../etc/passwd", "<script>", "\ud800", "🙂", "null", "true", "1e309", "-0", "ha-init", "hyperconverged-join", "eno1 ", "/dev/sda",
];
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constant(undefined),
);

function withValueAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return replacement;
  const container = (
    Array.isArray(value) ? [...value] : typeof value === "object" && value !== null ? { ...value } : typeof key === "number" ? [] : {}
  ) as Record<string | number, unknown>;
  const next = withValueAt(container[key], rest, replacement);
  if (next === undefined) delete container[key];
  // defineProperty, not assignment: a "__proto__" key must become an own member, as JSON.parse makes it.
  else Object.defineProperty(container, key, { value: next, enumerable: true, writable: true, configurable: true });
  return container;
}

const draftVariant = fc
  .array(fc.tuple(fc.constantFrom(...DRAFT_PATHS), oddValue), { minLength: 1, maxLength: 4 })
  .map((edits) => edits.reduce<unknown>((draft, [path, value]) => withValueAt(draft, path, value), structuredClone(VALID_DRAFT)));

const STRUCTURAL = [..."{}[]:,\"\\'#&*!|>-?%@` \t\n", "true", "null", "0", "1e9", "\u0000", "\r\n"];
const insertion = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: fc.constantFrom(...STRUCTURAL), maxLength: 6 }));

/** Character edits: delete, insert, replace, truncate at random places. */
function mutatedText(text: string): fc.Arbitrary<string> {
  const edit = fc.record({ at: fc.nat(), cut: fc.nat({ max: 12 }), insert: insertion });
  return fc.array(edit, { minLength: 1, maxLength: 6 }).map((edits) =>
    edits.reduce((out, { at, cut, insert }) => {
      const i = at % (out.length + 1);
      return out.slice(0, i) + insert + out.slice(i + cut);
    }, text),
  );
}

const YAML_SNIPPETS = [
  "anchor: &x {a: 1, b: [1, 2]}", "merged: {<<: *x}", "<<: *x", "alias: *x", "ref: *nowhere", "&a", "*a", "---", "...", "%YAML 1.1", "%TAG ! tag:x,2000:",
  "? [complex, key]\n: value", "bin: !!binary aGk=", "fn: !!js/function 'function(){}'", "m: !!map {}", "s: !<tag:yaml.org,2002:str> x", "block: |\n  text",
  "folded: >-\n  text", "- item", "'unterminated", "\"unterminated", "{a: [1, 2", "mode: ha-init", "hostname: &h node-02", "timezone: *h", "x: 0o777",
  "x: .inf", "x: 1_000", "x: ~", "x: 2001-12-14t21:59:43.10-05:00", "mode: single-node", "hostname: node-01",
];

/** Line edits: delete, duplicate, swap, indent with a tab, or insert a YAML construct. */
function mutatedLines(text: string): fc.Arbitrary<string> {
  const edit = fc.record({ kind: fc.constantFrom("delete", "duplicate", "swap", "tab", "insert"), at: fc.nat(), other: fc.nat(), snippet: fc.constantFrom(...YAML_SNIPPETS), indent: fc.nat({ max: 6 }) });
  return fc.array(edit, { minLength: 1, maxLength: 5 }).map((edits) => {
    const lines = text.split("\n");
    for (const { kind, at, other, snippet, indent } of edits) {
      const i = at % lines.length;
      const j = other % lines.length;
      if (kind === "delete") lines.splice(i, 1);
      else if (kind === "duplicate") lines.splice(i, 0, lines[i]!);
      else if (kind === "swap") [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      else if (kind === "tab") lines[i] = lines[i]!.replace(/^( *)/, (spaces) => "\t".repeat(Math.max(1, spaces.length / 2)));
      else lines.splice(i, 0, ...snippet.split("\n").map((l) => " ".repeat(indent) + l));
      if (lines.length === 0) lines.push("");
    }
    return lines.join("\n");
  });
}

const aliasBomb = fc.record({ depth: fc.integer({ min: 1, max: 12 }), width: fc.integer({ min: 1, max: 12 }) }).map(({ depth, width }) => {
  const lines = ["mode: single-node", "a0: &a0 [lol, lol]"];
  for (let i = 1; i <= depth; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(", ")}]`);
  return `${lines.join("\n")}\n`;
});

const hugeKey = fc.record({ size: fc.integer({ min: 1_000, max: 600_000 }), asValue: fc.boolean() }).map(({ size, asValue }) =>
  asValue ? `mode: single-node\nhostname: ${"h".repeat(size)}\n` : `mode: single-node\n${"k".repeat(size)}: v\n`,
);

const snakeKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(snakeKeys)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(v)]))
      : value;

const jsonBodies = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  draftVariant.map((d) => JSON.stringify(d)),
  mutatedText(DRAFT_JSON),
);

const yamlBodies = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => YAML.stringify(v)),
  draftVariant.map((d) => YAML.stringify(snakeKeys(d))),
  mutatedLines(NODE_YAML),
  mutatedText(NODE_YAML),
  aliasBomb,
  hugeKey,
  fc.string({ unit: "binary", maxLength: 300 }),
);

const BAD_UTF8 = [[0xff], [0xfe], [0xc0, 0xaf], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0x00]];

/** A JSON or YAML draft with invalid UTF-8 sequences spliced in, or a byte order mark, or random bytes. */
const byteBodies = fc.oneof(
  fc.record({ yaml: fc.boolean(), cuts: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...BAD_UTF8)), { minLength: 1, maxLength: 4 }) }).map(({ yaml, cuts }) => {
    let bytes = Buffer.from(yaml ? NODE_YAML : DRAFT_JSON);
    for (const [at, bad] of cuts) {
      const i = at % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from(bad), bytes.subarray(i)]);
    }
    return { yaml, bytes };
  }),
  fc.record({ yaml: fc.boolean(), bom: fc.constantFrom("utf8", "utf16le") }).map(({ yaml, bom }) => {
    const text = yaml ? NODE_YAML : DRAFT_JSON;
    const bytes = bom === "utf8" ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]) : Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    return { yaml, bytes };
  }),
  fc.record({ yaml: fc.boolean(), bytes: fc.uint8Array({ maxLength: 2_000 }).map((a) => Buffer.from(a)) }),
);

function draftSample(family: string, body: fc.Arbitrary<string | Buffer>, kind: "json" | "yaml"): fc.Arbitrary<Sample> {
  const targets = kind === "json" ? [PUT_CONFIG, PATCH_CONFIG, VALIDATE] : [PUT_CONFIG, VALIDATE];
  return fc.record({ target: fc.constantFrom(...targets), body, contentType: fc.constantFrom(...(kind === "json" ? JSON_TYPES : YAML_TYPES)) }).map((s) => ({ family, ...s }));
}

/** Bodies of exactly `size` bytes, in several shapes; some sent chunked (no Content-Length). */
const sizedSamples = fc
  .record({
    size: fc.oneof(fc.integer({ min: LIMIT - 4096, max: LIMIT + 4096 }), fc.constantFrom(LIMIT - 1, LIMIT, LIMIT + 1), fc.integer({ min: LIMIT + 4096, max: 3 * LIMIT })),
    shape: fc.constantFrom("json", "yaml", "bytes"),
    chunked: fc.boolean(),
    target: fc.constantFrom(...BODY_TARGETS),
  })
  .map(({ size, shape, chunked, target }): Sample => {
    const body =
      shape === "json" ? `{"hostname":"${"a".repeat(size - 15)}"}` : shape === "yaml" ? `hostname: ${"a".repeat(size - 11)}\n` : Buffer.alloc(size, 0x7b);
    return {
      family: "size",
      target,
      body,
      contentType: shape === "yaml" ? "application/yaml" : "application/json",
      headers: chunked ? { "transfer-encoding": "chunked" } : {},
    };
  });

interface Nesting {
  depth: number;
  shape: "json-array" | "json-object" | "yaml-flow" | "yaml-block";
  field: string;
  target: Target;
}

function nestedSample({ depth, shape, field, target }: Nesting): Sample {
  const yaml = shape.startsWith("yaml");
  const nested =
    shape === "json-array" || shape === "yaml-flow" ? `${"[".repeat(depth)}${"]".repeat(depth)}`
    : shape === "json-object" ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
    : Array.from({ length: Math.min(depth, 700) }, (_, i) => `\n${"  ".repeat(i + 1)}a:`).join("") + " 1";
  const body = yaml ? `mode: single-node\n${field}: ${nested}\n` : `{"mode":"single-node","${field}":${nested}}`;
  return { family: "depth", target: yaml && target === PATCH_CONFIG ? PUT_CONFIG : target, body, contentType: yaml ? "application/yaml" : "application/json" };
}

/** Nesting from shallow to far beyond any sane config, within (or just over) the body limit. */
const nestedSamples = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 64, max: 4_000 }), fc.integer({ min: 4_000, max: 150_000 })),
    shape: fc.constantFrom("json-array", "json-object", "yaml-flow", "yaml-block"),
    field: fc.constantFrom("hostname", "network", "admin", "unknown"),
    target: fc.constantFrom(PUT_CONFIG, PATCH_CONFIG, VALIDATE),
  })
  .map(nestedSample);

/** Always tried first, whatever the seed: the depths that overflow a recursive walk. */
const NESTING_EXAMPLES: Nesting[] = [
  { depth: 100_000, shape: "json-array", field: "network", target: VALIDATE },
  { depth: 100_000, shape: "yaml-flow", field: "network", target: PUT_CONFIG },
  { depth: 100_000, shape: "json-array", field: "hostname", target: PUT_CONFIG },
  { depth: 50_000, shape: "json-object", field: "network", target: PATCH_CONFIG },
];

const typedBodySamples = fc
  .record({
    target: fc.constantFrom(PUT_CONFIG, PATCH_CONFIG, VALIDATE),
    contentType: fc.oneof(fc.constantFrom(...ODD_TYPES, ...JSON_TYPES, ...YAML_TYPES, undefined), fc.string({ maxLength: 40 })),
    body: fc.oneof(fc.constantFrom(DRAFT_JSON, NODE_YAML, ""), fc.string({ maxLength: 200 })),
  })
  .map((s): Sample => ({ family: "content-type", ...s }));

const byteSamples = fc.record({ body: byteBodies, target: fc.constantFrom(PUT_CONFIG, PATCH_CONFIG, VALIDATE) }).map(({ body, target }): Sample => ({
  family: "bytes",
  target: body.yaml && target === PATCH_CONFIG ? PUT_CONFIG : target,
  body: body.bytes,
  contentType: body.yaml ? "application/yaml" : "application/json",
}));

const headerName = fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-_"), minLength: 1, maxLength: 16 }).map((n) => `x-fuzz-${n}`);
let nextAddress = 0;
/** A fresh loopback address per wrong code: each abuser address stays under the lockout threshold until the global budget speaks. */
const abuserAddress = () => {
  nextAddress += 1;
  return `127.1.${Math.floor(nextAddress / 250) % 250}.${1 + (nextAddress % 250)}`;
};

/** Right-code samples never go to POST /install: an If-Match "*" PUT may have made the draft valid. */
function headerSamples(code: string): fc.Arbitrary<Sample> {
  const target = fc.constantFrom(PUT_CONFIG, PATCH_CONFIG, VALIDATE, EVENTS, VERDICT);
  const longAuthorization = fc
    .record({ size: fc.integer({ min: 100, max: 12_000 }), form: fc.constantFrom("bearer-junk", "junk", "code-then-junk", "basic", "bearer-spaces"), target: fc.constantFrom(INSTALL, RECHECK, PUT_CONFIG, EVENTS) })
    .map(({ size, form, target }): Sample => {
      const junk = "Z".repeat(size);
      const authorization = { "bearer-junk": `Bearer ${junk}`, junk, "code-then-junk": `Bearer ${code}${junk}`, basic: `Basic ${Buffer.from(junk).toString("base64")}`, "bearer-spaces": `Bearer${" ".repeat(size)}${code}x` }[form];
      return { family: "headers", target, headers: { authorization }, from: abuserAddress(), ...(target.method === "GET" ? {} : { body: DRAFT_JSON, contentType: "application/json" }) };
    });
  const manyHeaders = fc
    .record({ headers: fc.dictionary(headerName, fc.string({ maxLength: 20 }), { minKeys: 1, maxKeys: 300 }), target })
    .map(({ headers, target }): Sample => ({ family: "headers", target, headers, ...(target.method === "GET" ? {} : { body: DRAFT_JSON, contentType: "application/json" }) }));
  const oddIfMatch = fc
    .record({
      ifMatch: fc.oneof(fc.constantFrom("*", "", " ", "W/\"x\"", '"a", "b"', '"', "W/", "*, \"x\"", "null", "\"\"", "x".repeat(5000)), fc.string({ maxLength: 60 })),
      target: fc.constantFrom(PUT_CONFIG, PATCH_CONFIG),
      body: fc.oneof(fc.constant(DRAFT_JSON), draftVariant.map((d) => JSON.stringify(d))),
    })
    .map(({ ifMatch, target, body }): Sample => ({ family: "headers", target, headers: { "if-match": ifMatch }, body, contentType: "application/json" }));
  return fc.oneof(longAuthorization, manyHeaders, oddIfMatch);
}

const RAW_QUERY_VALUES = [
  "", "0", "1", "2", "01", "1.0", "1.5", "1e0", "1e3", "-1", "-0", "+1", "0x1", "0b1", "NaN", "Infinity", "-Infinity", "9007199254740991",
  "9007199254740992", "99999999999999999999999", "%ZZ", "%", "%00", "1%00", "%31", "%E2%80%AE1", "null", "undefined", "true", "[]", "{}", "1,2", "1;2",
];
const queryValue = fc.oneof(
  fc.constantFrom(...RAW_QUERY_VALUES),
  fc.integer({ min: -5, max: 5 }).map(String),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.nat({ max: 3_000 }).map((n) => "9".repeat(n + 1)),
);
const queryString = fc
  .array(fc.tuple(fc.constantFrom("attempt", "after", "attempt[]", "Attempt", "", "attempt "), queryValue, fc.boolean()), { maxLength: 4 })
  .map((params) => (params.length === 0 ? "" : `?${params.map(([k, v, bare]) => (bare && v === "" ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${v}`)).join("&")}`));

const querySamples = fc
  .record({
    target: fc.constantFrom(EVENTS, VERDICT, REPORT),
    query: queryString,
    lastEventId: fc.option(fc.oneof(fc.nat({ max: 100 }).map(String), fc.string({ maxLength: 40 }), fc.nat({ max: 3_000 }).map((n) => "9".repeat(n + 1)), fc.constantFrom("-1", "1.5", " 3", "0x10"))),
    accept: fc.option(fc.constantFrom("application/json", "text/event-stream", "text/event-stream; q=1", "*/*", "text/html", "application/problem+json")),
  })
  .map(({ target, query, lastEventId, accept }): Sample => ({
    family: "query",
    target,
    query,
    headers: { ...(lastEventId === null ? {} : { "last-event-id": lastEventId }), ...(accept === null ? {} : { accept }) },
  }));

const installBodySamples = fc
  .record({
    target: fc.constantFrom(INSTALL, RECHECK),
    body: fc.option(fc.oneof(jsonBodies, yamlBodies, byteBodies.map((b) => b.bytes)), { nil: undefined }),
    contentType: fc.option(fc.constantFrom(...JSON_TYPES, ...YAML_TYPES, ...ODD_TYPES), { nil: undefined }),
  })
  .map((s): Sample => ({ family: "body", ...s }));

// ---- properties ----

describe("fuzz: draft bodies (PUT/PATCH /config, POST /config/validate)", () => {
  let installer: RunningInstaller;
  before(async () => {
    installer = await start();
  });

  test("random and mutated JSON: no 5xx, problem+json refusals, a refused body leaves the draft alone", async () => {
    await fuzz(installer, draftSample("json", jsonBodies, "json"), 3 * RUNS);
  });

  test("random and mutated YAML (anchors, aliases, tabs, huge keys): same properties", async () => {
    await fuzz(installer, draftSample("yaml", yamlBodies, "yaml"), 3 * RUNS);
  });

  test("wrong and odd content types (POST /install's are in its own block)", async () => {
    await fuzz(installer, typedBodySamples, 2 * RUNS);
  });

  test("invalid UTF-8, byte order marks and random bytes", async () => {
    await fuzz(installer, byteSamples, 2 * RUNS);
  });
});

describe("fuzz: body sizes near and over 1 MiB", () => {
  let installer: RunningInstaller;
  before(async () => {
    installer = await start();
  });

  test("over the limit → 413 BODY_TOO_LARGE, at or under it → never 413; chunked or not", async () => {
    await fuzz(installer, sizedSamples, RUNS, {
      expect(sample, reply) {
        const shown = `${describeSample(sample)}\n→ ${reply.status} ${reply.text.slice(0, 300)}`;
        if (Buffer.byteLength(sample.body!) > LIMIT) assert.equal(reply.json?.code, "BODY_TOO_LARGE", shown);
        else assert.notEqual(reply.status, 413, shown);
      },
    });
  });
});

describe("fuzz: deeply nested bodies", () => {
  let installer: RunningInstaller;
  before(async () => {
    installer = await start();
  });

  test("JSON and YAML nesting from 1 to 150 000 levels: no 5xx, the draft stays readable", async () => {
    await fuzz(installer, nestedSamples, 2 * RUNS, { examples: NESTING_EXAMPLES.map(nestedSample) });
  });
});

describe("fuzz: header abuse", () => {
  let installer: RunningInstaller;
  before(async () => {
    installer = await start();
  });

  test("long Authorization values (up to 12 KB), hundreds of headers, odd If-Match values", async () => {
    await fuzz(installer, headerSamples(installer.code), 2 * RUNS);
  });
});

describe("fuzz: POST /install and /install/recheck-readiness bodies", () => {
  let installer: RunningInstaller;
  before(async () => {
    installer = await start(["--readiness-timeout", "600"]);
  });

  test("with an empty draft: refused (422/409) whatever the body, nothing starts", async () => {
    await fuzz(installer, installBodySamples, RUNS);
  });

  test("while an attempt runs: 409 INSTALL_RUNNING whatever the body, no second attempt", async () => {
    const put = await httpsRaw(`${base(installer)}/config`, { method: "PUT", code: installer.code, body: DRAFT_JSON, contentType: "application/json" });
    assert.equal(put.status, 200, put.text);
    const started = await httpsRaw(`${base(installer)}/install`, { method: "POST", code: installer.code });
    assert.equal(started.status, 202, started.text);
    await fuzz(installer, installBodySamples, RUNS);
  });
});

describe("fuzz: attempt, after and Last-Event-ID of GET /install/events|verdict|report", () => {
  let installer: RunningInstaller;
  before(async () => {
    installer = await start(["--readiness-timeout", "1"]);
    const put = await httpsRaw(`${base(installer)}/config`, { method: "PUT", code: installer.code, body: DRAFT_JSON, contentType: "application/json" });
    assert.equal(put.status, 200, put.text);
    assert.equal((await httpsRaw(`${base(installer)}/install`, { method: "POST", code: installer.code })).status, 202);
    await waitFor("attempt 1 to finish", async () => ((await httpsRaw(`${base(installer)}/install/verdict?attempt=1`, { code: installer.code })).status === 200 ? true : undefined));
  });

  test("odd and repeated query values, Last-Event-ID values, JSON or SSE: no 5xx, SSE ends for a finished attempt", async () => {
    await fuzz(installer, querySamples, 3 * RUNS);
  });
});
