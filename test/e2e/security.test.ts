import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { once } from "node:events";
import { access, chmod, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { connect as connectTcp, createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { connect } from "node:tls";
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { describe, test } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { bundleNode, harness, httpsRaw, readSse, tempDir, untilNoBlockers, waitFor, writeFirstboot, type Reply, type RunningInstaller } from "../helpers/installer.ts";
import { assertConforms } from "../helpers/conformance.ts";
import { assertProblem } from "../helpers/problem.ts";

const lab = harness();
const { start } = lab;

const JOIN_TOKEN = "jt-SECRET-4711-token";
const PASSWORD_HASH = "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0";
const SECRET_DRAFT = { ...VALID_DRAFT, cluster: { joinToken: JOIN_TOKEN }, admin: { ...VALID_DRAFT.admin, passwordHash: PASSWORD_HASH } };

/** Prints everything it is given: its environment, its arguments and the node.yaml with its secrets. */
const ECHOING_FIRSTBOOT = `#!/bin/sh
echo "firstboot: args $*"
env
cat "$1"
echo "firstboot: done"
`;

/** A client on its own loopback address; the headers are sent as given (spoofed forwarding headers too). */
function statusFrom(installer: RunningInstaller, address: string, code: string | null, headers: Record<string, string> = {}): Promise<Reply> {
  return httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { localAddress: address, code, headers });
}

describe("security: what the lockout counts", () => {
  test("an IPv4 client is one address whether it is seen as 127.0.0.10 (IPv4 listener) or ::ffff:127.0.0.10 (dual-stack [::] listener, after a restart)", async (t) => {
    if (!(await dualStack())) return t.skip("this machine cannot listen on [::] with IPv4 clients");
    const stateDir = await tempDir();
    const client = "127.0.0.10";
    const ipv4 = await start({ stateDir });
    for (let i = 0; i < 3; i++) assertProblem(await statusFrom(ipv4, client, `WRNG-${i}`), 401, "UNAUTHORIZED");
    await ipv4.stop();
    const dual = await start({ stateDir, args: ["--listen", "[::]:0"] });
    for (let i = 3; i < 5; i++) assertProblem(await statusFrom(dual, client, `WRNG-${i}`), 401, "UNAUTHORIZED");
    assertProblem(await statusFrom(dual, client, dual.code), 429, "TOO_MANY_ATTEMPTS");
    const mapped = await httpsRaw(`https://[::ffff:127.0.0.1]:${dual.port}/v1/installer/status`, { localAddress: `::ffff:${client}`, code: dual.code });
    assertProblem(mapped, 429, "TOO_MANY_ATTEMPTS");
    const store = JSON.parse(await readFile(join(stateDir, "installer.json"), "utf8"));
    assert.deepEqual(Object.keys(store.lockout.addresses), [client]);
  });
});

/** Whether a [::] listener takes IPv4 clients (as ::ffff:a.b.c.d) on this machine. */
async function dualStack(): Promise<boolean> {
  const server = createServer((socket) => socket.end());
  try {
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "::", resolve));
    const socket = connectTcp((server.address() as AddressInfo).port, "127.0.0.1");
    await once(socket, "connect");
    socket.destroy();
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

interface InstallRig {
  installer: RunningInstaller;
  nodeYaml: string;
  folder: string;
}

/** An installer whose firstboot echoes what it gets and whose cloud is READY at once; node.yaml goes to folders that do not exist yet. */
async function installRig(): Promise<InstallRig> {
  const folder = await tempDir("stratum-security-");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
  lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, ECHOING_FIRSTBOOT);
  const nodeYaml = join(folder, "not/yet/there/etc/stratum/node.yaml");
  const installer = await start({
    stateDir: join(folder, "state"),
    args: ["--firstboot", firstboot, "--node-yaml", nodeYaml, "--readiness-url", readiness.url, "--readiness-timeout", "10", "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  return { installer, nodeYaml, folder };
}

/** `draft`: a structured draft, or a raw node.yaml. */
async function installAndFinish(installer: RunningInstaller, draft: object | string = SECRET_DRAFT): Promise<void> {
  const body = typeof draft === "string" ? { body: draft, contentType: "application/yaml" } : { body: draft };
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", ...body })).status, 200);
  assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
  const verdict = await waitFor("the verdict", async () => {
    const reply = await installer.request("/v1/installer/install/verdict?attempt=1");
    return reply.status === 200 ? reply.json : undefined;
  });
  assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
}

/**
 * Everything the installer ever wrote on stdout and stderr: it is stopped, and both pipes read to their end. A line
 * written late (by anything still under way when the test asks, its stop's lines too) is in it.
 */
async function wholeOutput(installer: RunningInstaller): Promise<{ stdout: string; stderr: string }> {
  await Promise.all([installer.stop(), finished(installer.proc.stdout!), finished(installer.proc.stderr!)]);
  return installer.output();
}

/** Everything a person or a log reader sees of an attempt, besides the draft itself; the installer is stopped after. */
async function attemptOutputs(installer: RunningInstaller): Promise<Record<string, string>> {
  const get = async (path: string) => (await installer.request(path)).text;
  const sse = await readSse(`https://127.0.0.1:${installer.port}/v1/installer/install/events?attempt=1`, installer.code);
  const replies = {
    events: await get("/v1/installer/install/events?attempt=1"),
    sse: JSON.stringify(sse.messages),
    verdict: await get("/v1/installer/install/verdict"),
    report: await get("/v1/installer/install/report"),
    attempts: await get("/v1/installer/install/attempts"),
    status: await get("/v1/installer/status"),
  };
  const { stdout, stderr } = await wholeOutput(installer);
  return { ...replies, "stdout after the banner": stdout.slice(installer.banner.length), "stderr log": stderr };
}

/** What an attempt leaves in the state dir: its event files, and its record in the store (the draft beside it keeps its secrets, for GET /config). */
async function attemptFiles(stateDir: string): Promise<Record<string, string>> {
  const names = (await readdir(join(stateDir, "events"))).map((name) => join("events", name));
  const files = await Promise.all(names.map(async (name) => [name, await readFile(join(stateDir, name), "utf8")] as const));
  const store = JSON.parse(await readFile(join(stateDir, "installer.json"), "utf8"));
  return { ...Object.fromEntries(files), "installer.json attempts": JSON.stringify(store.attempts) };
}

/** Replies to mistakes of every kind, each with its headers. */
async function errorReplies(installer: RunningInstaller): Promise<Record<string, string>> {
  const code = installer.code;
  const nearMiss = `${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`;
  const api = (path: string, options: Parameters<RunningInstaller["request"]>[1] = {}) =>
    httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer${path}`, { code, ...options });
  const replies: Record<string, Reply> = {
    "401 near miss": await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { code: nearMiss, localAddress: "127.0.0.20" }),
    "401 no code": await api("/status", { code: null }),
    "404 path": await api("/nope"),
    "404 attempt": await api("/install/report?attempt=99"),
    "400 query": await api("/install/verdict?attempt=abc"),
    "400 body": await api("/config", { method: "PUT", body: '{"cluster":{"joinToken":', contentType: "application/json" }),
    "412": await api("/config", { method: "PATCH", body: "{}", contentType: "application/json", headers: { "if-match": '"stale"' } }),
    "413": await api("/config", { method: "PUT", body: `{"h":"${"a".repeat(1_100_000)}"}`, contentType: "application/json" }),
    "415": await api("/config", { method: "PUT", body: "x", contentType: "text/plain" }),
    "409": await api("/install", { method: "POST" }),
  };
  for (let i = 0; i < 6; i++) replies["429"] = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { code: `WRNG-${i}`, localAddress: "127.0.0.21" });
  for (const [name, reply] of Object.entries(replies)) assert.ok(reply.status >= 400 && reply.status < 500, `${name}: ${reply.status} ${reply.text.slice(0, 200)}`);
  return Object.fromEntries(Object.entries(replies).map(([name, reply]) => [name, `${JSON.stringify(reply.headers)}\n${reply.text}`]));
}

function assertAbsent(outputs: Record<string, string>, secrets: string[]): void {
  for (const [where, text] of Object.entries(outputs)) {
    for (const secret of secrets) assert.ok(!text.toLowerCase().includes(secret.toLowerCase()), `${where} shows ${secret}:\n${text.slice(0, 2000)}`);
  }
}

describe("security: secrets stay secret", () => {
  test("the install code is in no output after the banner: events, SSE, report, verdict, logs, error replies — with a firstboot that echoes its environment and node.yaml", async () => {
    const { installer } = await installRig();
    await installAndFinish(installer);
    const outputs = { ...(await errorReplies(installer)), ...(await attemptOutputs(installer)) };
    assert.match(outputs.events!, /firstboot: done/, "the firstboot's output is in the events");
    assertAbsent(outputs, [installer.code, installer.code.replaceAll("-", "")]);
  });

  test("the draft's secrets: returned by an authorized GET /config, written to node.yaml (0600, folders created), never in events, report, logs or errors", async () => {
    const { installer, nodeYaml } = await installRig();
    await installAndFinish(installer);
    const draft = (await installer.request("/v1/installer/config")).json;
    assert.equal(draft.config.cluster.joinToken, JOIN_TOKEN);
    assert.equal(draft.config.admin.passwordHash, PASSWORD_HASH);
    assert.equal((await stat(nodeYaml)).mode & 0o777, 0o600);
    assert.match(await readFile(nodeYaml, "utf8"), /jt-SECRET-4711-token/, "the node gets its secrets");
    const outputs = { ...(await errorReplies(installer)), ...(await attemptOutputs(installer)) };
    assert.match(outputs.events!, /join_token/, "the firstboot printed node.yaml");
    assertAbsent(outputs, [JOIN_TOKEN, PASSWORD_HASH, PASSWORD_HASH.slice(20, 60)]);
  });

  // tok'"\x#: S3CRET — node.yaml, JSON and a user's YAML all spell it otherwise than raw; each spelling holds S3CRET.
  const NASTY_TOKEN = `tok'"\\x#: S3CRET`;
  const NASTY_DRAFTS: { name: string; draft: object | string }[] = [
    { name: "a structured draft", draft: { ...SECRET_DRAFT, cluster: { joinToken: NASTY_TOKEN } } },
    { name: "a raw node.yaml draft, single-quoted", draft: `${VALID_NODE_YAML}cluster:\n  join_token: 'tok''"\\x#: S3CRET'\n` },
    { name: "a raw node.yaml draft, double-quoted", draft: `${VALID_NODE_YAML}cluster:\n  join_token: "tok'\\"\\\\x#: S3CRET"\n` },
    { name: "a raw node.yaml draft, a block of two lines", draft: `${VALID_NODE_YAML}cluster:\n  join_token: |\n    tok'"\\x#: S3CRET\n    second-line-S3CRET\n` },
  ];

  for (const { name, draft } of NASTY_DRAFTS) {
    test(`a join token with quotes, a backslash, # and ": " in ${name}: in no spelling in events, SSE, report, verdict, event files, attempt records or the log — with a firstboot that cats node.yaml`, async () => {
      const { installer, nodeYaml } = await installRig();
      await installAndFinish(installer, draft);
      assert.match(await readFile(nodeYaml, "utf8"), /S3CRET/, "the node gets its secret");
      const outputs = { ...(await attemptOutputs(installer)), ...(await attemptFiles(installer.stateDir)) };
      assert.match(outputs.events!, /join_token/, "the firstboot printed node.yaml");
      assertAbsent(outputs, ["S3CRET", NASTY_TOKEN]);
    });
  }

  const MALFORMED_SECRETS: { name: string; secret: string; json?: object; yaml?: string }[] = [
    { name: "a plain password as passwordHash", secret: "hunter2-PLAIN-SECRET", json: { admin: { passwordHash: "hunter2-PLAIN-SECRET" } } },
    { name: "a cut-short SHA-512 hash", secret: "SECRETcutShort", json: { admin: { passwordHash: "$6$saltsalt$SECRETcutShort" } } },
    { name: "an MD5 hash", secret: "SECRETmd5crypt", json: { admin: { passwordHash: "$1$saltsalt$SECRETmd5crypt" } } },
    { name: "a join token over the length limit", secret: "jt-SECRET-LONG-", json: { cluster: { joinToken: `jt-SECRET-LONG-${"x".repeat(5000)}` } } },
    { name: "a numeric passwordHash (JSON)", secret: "80071992547", json: { admin: { passwordHash: 80071992547 } } },
    { name: "a numeric join_token (YAML)", secret: "55512345678", yaml: "mode: join\nhostname: node-01\ncluster:\n  join_address: 10.20.0.5\n  join_token: 55512345678\n" },
    { name: "a YAML syntax error inside the token", secret: "SECRET-UNTERMINATED", yaml: 'mode: join\ncluster:\n  join_token: "jt-SECRET-UNTERMINATED\n' },
    { name: "a duplicate join_token key", secret: "SECRET-TWICE", yaml: "mode: join\ncluster:\n  join_token: jt-SECRET-TWICE-1\n  join_token: jt-SECRET-TWICE-2\n" },
    { name: "a token read as a YAML tag", secret: "SECRET-TAGGED", yaml: "mode: join\ncluster:\n  join_token: !jt-SECRET-TAGGED\n" },
    { name: "a token read as a block scalar header", secret: "SECRET-FOLDED", yaml: "mode: join\ncluster:\n  join_token: >jt-SECRET-FOLDED\n" },
  ];

  for (const { name, secret, json, yaml } of MALFORMED_SECRETS) {
    test(`a validation error about ${name} does not repeat the secret (validate, PUT errors, POST /install 422, log)`, async () => {
      const installer = await start();
      await untilNoBlockers(installer);
      const body = json ? { body: JSON.stringify(json), contentType: "application/json" } : { body: yaml!, contentType: "application/yaml" };
      const api = (path: string, method: string) => httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer${path}`, { code: installer.code, method, ...body });
      const validate = await api("/config/validate", "POST");
      const put = await api("/config", "PUT");
      const install = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/install`, { code: installer.code, method: "POST" });
      assert.ok(validate.status < 500 && put.status < 500 && install.status < 500);
      const status = (await installer.request("/v1/installer/status")).text;
      assertAbsent(
        {
          "POST /config/validate": validate.text,
          "PUT /config errors": put.status === 200 ? JSON.stringify(put.json.errors) : put.text,
          "POST /install": install.text,
          "GET /status": status,
          "stderr log": (await wholeOutput(installer)).stderr,
        },
        [secret],
      );
    });
  }
});

describe("security: the installer's TLS private key, and any private key a firstboot prints", () => {
  // A firstboot that shows the key the installer serves with every way a person might (cat, its body alone, on one
  // line), and a key of its own, then fails: its last lines are in the verdict's message.
  const KEY_FIRSTBOOT = (key: string) => `#!/bin/sh
echo "tls.key:"
cat "${key}"
grep -v -- ----- "${key}" >&2
grep -v -- ----- "${key}" | tr -d '\\n'; echo
cat "$(dirname "$0")/own.key"
cat "${key}"
exit 1
`;

  for (const operator of [false, true]) {
    test(`${operator ? "an operator's --tls-key" : "the state dir's tls.key"}, printed by a firstboot that fails: no line of it in events, SSE, report, verdict, event files, attempt records or the log`, async () => {
      const folder = await tempDir("stratum-security-");
      const stateDir = join(folder, "state");
      const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
      lab.defer(() => readiness.close());
      const firstbootsKey = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs1", format: "pem", cipher: "aes-128-cbc", passphrase: "p" }) as string;
      await writeFile(join(folder, "own.key"), firstbootsKey);
      let tlsArgs: string[] = [];
      let keyPath = join(stateDir, "tls.key");
      if (operator) {
        const pair = generateSelfSignedCert({ commonName: "node-01", dnsNames: ["node-01"], ipAddresses: ["127.0.0.1"] });
        await writeFile(join(folder, "op.crt"), pair.certPem);
        await writeFile((keyPath = join(folder, "op.key")), pair.keyPem);
        tlsArgs = ["--tls-cert", join(folder, "op.crt"), "--tls-key", keyPath];
      }
      const firstboot = await writeFirstboot(folder, KEY_FIRSTBOOT(keyPath));
      const installer = await start({
        stateDir,
        args: ["--firstboot", firstboot, "--node-yaml", join(folder, "node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "10", "--readiness-interval", "0.1", ...tlsArgs],
      });
      await untilNoBlockers(installer);
      assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
      assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
      const verdict = await waitFor("the verdict", async () => {
        const reply = await installer.request("/v1/installer/install/verdict?attempt=1");
        return reply.status === 200 ? reply.json : undefined;
      });
      assert.equal(verdict.code, "FIRSTBOOT_FAILED", JSON.stringify(verdict));
      const key = await readFile(keyPath, "utf8");
      const outputs = { ...(await attemptOutputs(installer)), ...(await attemptFiles(stateDir)) };
      assert.match(outputs.events!, /tls\.key:/, "the firstboot ran");
      const ownLines = (pem: string) => pem.split("\n").filter((line) => line.length >= 8 && !line.startsWith("-----"));
      const body = ownLines(key);
      assertAbsent(outputs, [...body, body.join(""), ...ownLines(firstbootsKey)]);
      // What no private key holds still shows: the key's place, and the lines around it.
      assert.match(outputs.verdict!, /\[redacted\]/);
    });
  }
});

describe("security: a node.yaml draft that does not parse", () => {
  test("its secrets stay out of a later attempt's report, events and the log (a readiness recheck after the draft was half-edited)", async () => {
    const folder = await tempDir("stratum-security-");
    const readiness = await startReadinessServer({ port: 0, scenario: "never" });
    lab.defer(() => readiness.close());
    const installer = await start({
      stateDir: join(folder, "state"),
      args: ["--firstboot", "/bin/true", "--node-yaml", join(folder, "node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "1", "--readiness-interval", "0.1"],
    });
    await untilNoBlockers(installer);
    const verdict = async (attempt: number) =>
      waitFor(`the verdict of attempt ${attempt}`, async () => {
        const reply = await installer.request(`/v1/installer/install/verdict?attempt=${attempt}`);
        return reply.status === 200 ? reply.json : undefined;
      });
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    assert.equal((await verdict(1)).next, "recheckReadiness");

    const halfEdited = `mode: join\nhostname: node-01\ncluster:\n  join_token: ${JOIN_TOKEN}\n   join_address: "10.20.0.5\nadmin:\n  password_hash: '${PASSWORD_HASH}' # from the vault\n`;
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: halfEdited, contentType: "application/yaml" });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.valid, false);
    assert.equal((await installer.request("/v1/installer/install/recheck-readiness", { method: "POST" })).status, 202);
    await verdict(2);
    const report = await installer.request("/v1/installer/install/report?attempt=2");
    const installed = (await installer.request("/v1/installer/install/report?attempt=1")).json.config;
    assert.deepEqual(report.json.config, installed, "the recheck's report records what the install installed, not the half-edited draft");
    assertAbsent(
      {
        report: report.text,
        events: (await installer.request("/v1/installer/install/events?attempt=2")).text,
        status: (await installer.request("/v1/installer/status")).text,
        "stderr log": (await wholeOutput(installer)).stderr,
      },
      [JOIN_TOKEN, PASSWORD_HASH],
    );
  });
});

describe("security: files", () => {
  test("the TLS key and the install code file are mode 0600", async () => {
    const installer = await start();
    for (const name of ["tls.key", "install-code"]) assert.equal((await stat(join(installer.stateDir, name))).mode & 0o777, 0o600, name);
  });

  test("a state dir that exists with mode 0755 is made 0700 at start, and its events folder once an attempt writes there", async () => {
    const stateDir = join(await tempDir(), "state");
    const events = join(stateDir, "events");
    await mkdir(events, { recursive: true });
    await Promise.all([chmod(stateDir, 0o755), chmod(events, 0o755)]);
    const installer = await start({ stateDir });
    assert.equal((await stat(stateDir)).mode & 0o777, 0o700, "the state dir");
    await untilNoBlockers(installer);
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
    assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
    await waitFor("the verdict", async () => ((await installer.request("/v1/installer/install/verdict")).status === 200 ? true : undefined));
    assert.equal((await stat(events)).mode & 0o777, 0o700, "the events folder");
  });

  test("the written node.yaml is mode 0600 and its parent folders are created", async () => {
    const { installer, nodeYaml, folder } = await installRig();
    await assert.rejects(access(join(folder, "not")), "the folders do not exist before the install");
    await installAndFinish(installer);
    assert.equal((await stat(nodeYaml)).mode & 0o777, 0o600);
    assert.equal(await readFile(nodeYaml, "utf8"), (await installer.request("/v1/installer/config/node.yaml")).text);
  });
});

/** What Hono's own secureHeaders middleware (HSTS off) sends: the installer must send all of it. */
async function honoSecureHeaderSet(): Promise<[string, string][]> {
  const probe = new Hono();
  probe.use(secureHeaders({ strictTransportSecurity: false }));
  probe.get("/", (c) => c.body(null));
  return [...(await probe.request("/")).headers];
}
const HONO_SET = honoSecureHeaderSet();
const seenRequestIds = new Set<string>();

async function assertSecurityHeaders(reply: Reply, what: string): Promise<void> {
  const h = reply.headers;
  for (const [name, value] of await HONO_SET) assert.equal(h[name], value, `${what}: ${name} as Hono's secureHeaders sets it`);
  const id = String(h["x-request-id"]);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, `${what}: X-Request-Id`);
  assert.ok(!seenRequestIds.has(id), `${what}: X-Request-Id ${id} was already used`);
  seenRequestIds.add(id);
  if (reply.status >= 400) assert.equal(reply.json.requestId, id, `${what}: the problem's requestId is the header's`);
  assert.equal(h["x-content-type-options"], "nosniff", what);
  assert.match(String(h["x-frame-options"]), /^(DENY|SAMEORIGIN)$/, what);
  assert.ok(h["referrer-policy"], `${what}: Referrer-Policy`);
  assert.ok(h["cross-origin-resource-policy"], `${what}: Cross-Origin-Resource-Policy`);
  assert.equal(h["strict-transport-security"], undefined, `${what}: no HSTS for a self-signed certificate`);
}

describe("security: response headers", () => {
  test("Hono's security headers and a fresh X-Request-Id on 2xx and on every kind of error reply, no Strict-Transport-Security", async () => {
    const installer = await start();
    await untilNoBlockers(installer);
    const url = (path: string) => `https://127.0.0.1:${installer.port}${path}`;
    const code = installer.code;
    const json = (body: unknown) => ({ body: JSON.stringify(body), contentType: "application/json" });
    const cases: [string, number, Promise<Reply>][] = [
      ["GET /healthz", 200, httpsRaw(url("/healthz"))],
      ["GET /openapi.json", 200, httpsRaw(url("/openapi.json"))],
      ["GET /status", 200, httpsRaw(url("/v1/installer/status"), { code })],
      ["GET /options", 200, httpsRaw(url("/v1/installer/options"), { code })],
      ["PUT /config", 200, httpsRaw(url("/v1/installer/config"), { code, method: "PUT", ...json({ mode: "single-node" }) })],
      ["POST /config/validate", 200, httpsRaw(url("/v1/installer/config/validate"), { code, method: "POST", ...json(VALID_DRAFT) })],
      ["no code", 401, httpsRaw(url("/v1/installer/status"))],
      ["unknown path", 404, httpsRaw(url("/v1/installer/nope"), { code })],
      ["bad query", 400, httpsRaw(url("/v1/installer/install/events?attempt=x"), { code })],
      ["stale If-Match", 412, httpsRaw(url("/v1/installer/config"), { code, method: "PUT", ...json({}), headers: { "if-match": '"stale"' } })],
      ["too large", 413, httpsRaw(url("/v1/installer/config"), { code, method: "PUT", ...json({ h: "a".repeat(1_100_000) }) })],
      ["wrong type", 415, httpsRaw(url("/v1/installer/config"), { code, method: "PUT", body: "x", contentType: "text/plain" })],
      ["invalid draft", 422, httpsRaw(url("/v1/installer/install"), { code, method: "POST" })],
      ["nothing to recheck", 409, httpsRaw(url("/v1/installer/install/recheck-readiness"), { code, method: "POST" })],
    ];
    for (const [what, status, pending] of cases) {
      const reply = await pending;
      assert.equal(reply.status, status, `${what}: ${reply.text.slice(0, 200)}`);
      await assertSecurityHeaders(reply, what);
    }
    for (let i = 0; i < 5; i++) await statusFrom(installer, "127.0.0.8", `WRNG-${i}`);
    const locked = await statusFrom(installer, "127.0.0.8", code);
    assertProblem(locked, 429, "TOO_MANY_ATTEMPTS");
    await assertSecurityHeaders(locked, "locked out");
  });
});

describe("security: oversized headers", () => {
  test("a 10 KB Authorization header → 401 problem+json, and the installer carries on", async () => {
    const installer = await start();
    const reply = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { headers: { authorization: `Bearer ${"K".repeat(10 * 1024)}` } });
    assertProblem(reply, 401, "UNAUTHORIZED");
    assert.equal(installer.proc.exitCode, null);
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
  });

  test("a header block over the HTTP parser's 16 KB limit → 431 as problem+json, and the installer carries on", async () => {
    const installer = await start();
    const reply = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { headers: { authorization: `Bearer ${"K".repeat(20 * 1024)}` } });
    assert.equal(installer.proc.exitCode, null);
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    assertProblem(reply, 431, "INVALID_REQUEST");
  });

  test("a request that is not valid HTTP → 400 as problem+json (the 400 every route without the code documents), and the installer carries on", async () => {
    const installer = await start();
    const socket = connect({ host: "127.0.0.1", port: installer.port, rejectUnauthorized: false });
    await once(socket, "secureConnect");
    socket.end("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nthis is no header\r\n\r\n");
    socket.setEncoding("utf8");
    let raw = "";
    for await (const chunk of socket) raw += chunk;
    const [head = "", text = ""] = raw.split("\r\n\r\n");
    const [statusLine, ...lines] = head.split("\r\n");
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
    assertProblem({ status: Number(statusLine!.split(" ")[1]), headers, text, json: JSON.parse(text) }, 400, "INVALID_REQUEST", { detail: "The request is not valid HTTP." });
    assert.equal(installer.proc.exitCode, null);
    assert.equal((await installer.request("/healthz", { code: null })).status, 200);
  });

  test("a request Node parses but that names no URL (target *, HTTP/1.1 without Host, a Host that is no host) → 400 as problem+json, not an empty 400, documented for the operation it names", async () => {
    const installer = await start();
    const heads = [
      "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n",
      "GET /healthz HTTP/1.1\r\n",
      `GET /v1/installer/status HTTP/1.1\r\nHost: no host\r\nAuthorization: Bearer ${installer.code}\r\n`,
      `GET /v1/installer/status HTTP/1.1\r\nAuthorization: Bearer ${installer.code}\r\n`,
    ];
    for (const head of heads) {
      const reply = await exchange(installer, `${head}Connection: close\r\n\r\n`);
      assertProblem(reply, 400, "INVALID_REQUEST", { what: JSON.stringify(head), detail: /^The request is not valid HTTP/ });
      assert.equal(reply.headers["x-content-type-options"], "nosniff");
      const [method, target] = head.split(" ");
      if (target !== "*") await assertConforms({ method: method!, url: `https://127.0.0.1:${installer.port}${target}`, ...reply });
    }
    assert.equal((await exchange(installer, "GET /healthz HTTP/1.0\r\n\r\n")).status, 200, "HTTP/1.0 has no Host to name");
    assert.equal((await installer.request("/healthz", { code: null })).status, 200);
  });
});

/** `request` as written, on a TLS connection of its own; the reply as read until the installer closes it (Content-Length bodies). */
async function exchange(installer: RunningInstaller, request: string): Promise<Reply> {
  const socket = connect({ host: "127.0.0.1", port: installer.port, rejectUnauthorized: false });
  await once(socket, "secureConnect");
  socket.end(request);
  socket.setEncoding("utf8");
  let raw = "";
  for await (const chunk of socket) raw += chunk;
  const split = raw.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = raw.slice(0, split).split("\r\n");
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  const text = raw.slice(split + 4);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, text, json };
}

/**
 * Sends a head declaring `total` body bytes and a first 64 KB piece, then, once the reply's head has come, the rest
 * in 64 KB pieces whatever the reply says (as curl does), reading all the while; resolves once the socket closes.
 * The rest waits for the reply so that some of the body is sent after it on any machine: a slow installer (its API
 * built at the first request) had read all but one piece before it answered.
 */
function sendOversized(installer: RunningInstaller, total: number, headers: string): Promise<{ reply: string; error?: string; sentAfterReply: number }> {
  return new Promise((resolve) => {
    // tls.connect passes allowHalfOpen on to its socket; @types/node does not list it.
    const halfOpen = { allowHalfOpen: true };
    const socket = connect({ host: "127.0.0.1", port: installer.port, rejectUnauthorized: false, ...halfOpen });
    let reply = "";
    let error: string | undefined;
    let sent = 0;
    let sentAfterReply = 0;
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let waitingForReply = false;
    const more = (): void => {
      if (socket.destroyed) return;
      if (sent > 0 && !reply.includes("\r\n\r\n")) return void (waitingForReply = true);
      if (sent >= total) return void socket.end();
      const chunk = piece.subarray(0, Math.min(piece.length, total - sent));
      sent += chunk.length;
      if (reply.includes("\r\n\r\n")) sentAfterReply += chunk.length;
      socket.write(chunk, () => setTimeout(more, reply ? 5 : 0));
    };
    socket.once("secureConnect", () => {
      socket.write(`POST /v1/installer/config/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${installer.code}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n${headers}\r\n`);
      more();
    });
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString();
      if (waitingForReply && reply.includes("\r\n\r\n")) {
        waitingForReply = false;
        more();
      }
    });
    socket.on("error", (err) => (error = err.message));
    socket.on("close", () => resolve({ reply, error, sentAfterReply }));
  });
}

describe("security: oversized bodies", () => {
  test("a client still sending a refused 3 MiB body with Connection: close reads its 413: the installer keeps reading until the client closes, no reset", async () => {
    const installer = await start();
    const { reply, error, sentAfterReply } = await sendOversized(installer, 3 * 1024 * 1024, "Connection: close\r\n");
    assert.match(reply, /^HTTP\/1\.1 413 /, reply);
    assert.match(reply, /"code":"BODY_TOO_LARGE"/);
    assert.ok(sentAfterReply > 0, "the body was still being sent after the reply came");
    assert.equal(error, undefined, `the connection was reset while the client was still sending (${sentAfterReply} bytes after the reply)`);
  });

  test("a refused body on a keep-alive connection: the 413 says Connection: close and the installer reads on until the client is done, so the client never meets a reset and opens a new connection for its next request", async () => {
    const installer = await start();
    const { reply, error, sentAfterReply } = await sendOversized(installer, 3 * 1024 * 1024, "");
    assert.match(reply, /^HTTP\/1\.1 413 /, reply);
    assert.match(reply, /\r\nconnection: close\r\n/i, reply);
    assert.ok(sentAfterReply > 0, "the body was still being sent after the reply came");
    assert.equal(error, undefined, `the connection was reset while the client was still sending (${sentAfterReply} bytes after the reply)`);
    assert.equal((await installer.request("/v1/installer/config")).headers["cache-control"], "no-store", "and on a real socket an answer under /v1/installer is not to be stored");
  });

  test("twenty 1–3 MiB bodies in a row, each on its own Connection: close socket: every one gets 413 BODY_TOO_LARGE", async () => {
    const installer = await start();
    for (let i = 0; i < 20; i++) {
      const size = 1024 * 1024 + 1 + Math.floor((i / 20) * 2 * 1024 * 1024);
      const reply = await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/config/validate`, { method: "POST", code: installer.code, body: `{"hostname":"${"a".repeat(size - 15)}"}`, contentType: "application/json" });
      assertProblem(reply, 413, "BODY_TOO_LARGE");
    }
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
  });
});

describe("security: a flood of connections", () => {
  test("connections past what the open-files limit leaves are refused, logged, and closed unless they shake hands: an open console's writes still get their files", async () => {
    const folder = await tempDir();
    // The installer under a limit of 320 open files, as a unit's LimitNOFILE would set it.
    const node = join(folder, "node-320-files");
    await writeFile(node, `#!/bin/sh\nexec prlimit --nofile=320:320 -- "${await bundleNode()}" "$@"\n`);
    await chmod(node, 0o755);
    const installer = await start({ node });
    const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    const onConsole = (method: string, path: string, body?: object) =>
      new Promise<number>((resolve, reject) => {
        const req = httpsRequest(`${installer.url}${path}`, { method, agent, headers: { authorization: `Bearer ${installer.code}`, ...(body ? { "content-type": "application/json" } : {}) } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode!));
        });
        req.on("error", reject);
        req.end(body ? JSON.stringify(body) : undefined);
      });
    try {
      assert.equal(await onConsole("GET", "/v1/installer/status"), 200, "the console's connection is open");
      // 600 connections that never shake hands: more than the limit of open files.
      const flood = Array.from({ length: 600 }, () => connectTcp(installer.port, "127.0.0.1"));
      let closed = 0;
      for (const socket of flood) socket.on("error", () => undefined).on("close", () => (closed += 1));
      await Promise.all(flood.map((socket) => new Promise<void>((resolve) => socket.once("connect", resolve).once("close", resolve))));
      // Each save writes a temp file and renames it: files the flood would have taken.
      for (let i = 0; i < 5; i++) {
        assert.equal(await onConsole("PUT", "/v1/installer/config", { ...VALID_DRAFT, hostname: `flooded-${i}` }), 200, `save ${i} during the flood`);
      }
      await waitFor("the refused connections in the log", async () => /"connections refused"/.test(installer.output().stderr) || undefined);
      // Those let in but silent are closed at the handshake's timeout (10 s): none is kept for good.
      await waitFor("every silent connection closed by the installer", async () => closed === flood.length || undefined, 60_000);
      assert.equal((await installer.request("/v1/installer/config")).json.config.hostname, "flooded-4", "the last save is the draft");
    } finally {
      agent.destroy();
    }
  });
});
