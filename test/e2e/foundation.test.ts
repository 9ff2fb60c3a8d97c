import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { connect } from "node:net";
import { chown, copyFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { stateLayout } from "../../core/state/layout.ts";
import { BUNDLE, harness, runCli, tempDir, waitFor } from "../helpers/installer.ts";
import { assertProblem } from "../helpers/problem.ts";

const { start } = harness();

describe("install code", () => {
  test("`installer code` prints the state dir's code alone on one line", async () => {
    const installer = await start();
    const result = await runCli(["code", "--state-dir", installer.stateDir]);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `${installer.code}\n`);
    const mode = (await stat(join(installer.stateDir, "install-code"))).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  test("a lockout survives a restart: 429, its Retry-After no longer than before", async () => {
    const stateDir = await tempDir();
    const installer = await start({ stateDir });
    for (let i = 0; i < 5; i++) {
      assertProblem(await installer.request("/v1/installer/status", { code: `WRONG-${i}` }), 401, "UNAUTHORIZED");
    }
    const locked = await installer.request("/v1/installer/status");
    assertProblem(locked, 429, "TOO_MANY_ATTEMPTS");
    const retryAfter = Number(locked.headers["retry-after"]);

    await installer.stop();
    const restarted = await start({ stateDir });
    const still = await restarted.request("/v1/installer/status");
    assertProblem(still, 429, "TOO_MANY_ATTEMPTS");
    assert.ok(Number(still.headers["retry-after"]) <= retryAfter);
  });
});

describe("TLS", () => {
  test("self-signed certificate generated once (key 0600), pinned fingerprint, reused after restart", async () => {
    const stateDir = await tempDir();
    const first = await start({ stateDir });
    const reply = await first.request("/healthz", { code: null });
    assert.equal(reply.peerFingerprint, first.fingerprint);
    assert.equal((await stat(join(stateDir, "tls.key"))).mode & 0o777, 0o600);
    await first.stop();
    const second = await start({ stateDir });
    assert.equal(second.fingerprint, first.fingerprint);
    assert.match(second.banner, /\(reused\)/);
  });

  test("GET /tls without a code: the fingerprint the banner printed and the certificate's expiry", async () => {
    const stateDir = await tempDir();
    const installer = await start({ stateDir });
    const reply = await installer.request("/tls", { code: null });
    assert.equal(reply.status, 200, reply.text);
    const certificate = new X509Certificate(await readFile(join(stateDir, "tls.crt")));
    assert.deepEqual(reply.json, { sha256: installer.fingerprint, notAfter: new Date(certificate.validTo).toISOString() });
    assert.equal(reply.json.sha256, reply.peerFingerprint, "the certificate this very connection met");
  });
});

describe("HTTPS only", () => {
  test("a plain-HTTP request, with the right code, is answered nothing of the API: no status line, no JSON, no code echoed; the installer carries on", async () => {
    const installer = await start();
    const socket = connect({ host: "127.0.0.1", port: installer.port });
    await once(socket, "connect");
    socket.end(`GET /v1/installer/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${installer.code}\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    await once(socket, "close");
    const answered = Buffer.concat(chunks).toString("latin1");
    assert.doesNotMatch(answered, /^HTTP\/1\.[01] 2/, answered.slice(0, 200));
    assert.ok(!answered.includes('"phase"') && !answered.includes(installer.code), answered.slice(0, 200));
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
  });
});

describe("state dir", () => {
  test("a store file that does not parse is kept aside, the service starts fresh and says so", async () => {
    const stateDir = await tempDir();
    await writeFile(join(stateDir, "installer.json"), '{"schemaVersion":1,"draft":{"sour');
    const installer = await start({ stateDir });
    assert.match(installer.banner, /NOTICE: the store file did not parse \(.+\): kept aside as .*installer\.json\.corrupt-/);
    const names = await readdir(stateDir);
    const aside = names.find((n) => n.startsWith("installer.json.corrupt-"));
    assert.ok(aside, names.join(","));
    assert.equal(await readFile(join(stateDir, aside), "utf8"), '{"schemaVersion":1,"draft":{"sour');
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    // The log says it too (SPEC §2: "saying so in the banner and the log"), however slowly its line reaches the pipe.
    await waitFor("the log's line saying so", async () => (/kept aside/.test(installer.output().stderr) ? true : undefined));
  });

  test("temp files of an interrupted write are removed at start", async () => {
    const stateDir = await tempDir();
    await writeFile(join(stateDir, ".installer.json.12345.tmp"), "{half");
    const installer = await start({ stateDir });
    assert.ok(!(await readdir(stateDir)).includes(".installer.json.12345.tmp"));
    assert.match(installer.banner, /removed 1 temp file/);
  });

  test("a second installer on the same state dir exits 2 naming the holder's pid", async () => {
    const installer = await start();
    const second = await runCli(["serve", "--listen", "127.0.0.1:0", "--state-dir", installer.stateDir]);
    assert.equal(second.code, 2);
    assert.match(second.stderr, new RegExp(`pid ${installer.proc.pid}`));
  });

  // The operator's TLS files, beside the state dir (spoil returns the flags that name them).
  const tls = async (dir: string, cert: string, key: string) => {
    await writeFile(join(dir, "..", "op.crt"), cert);
    await writeFile(join(dir, "..", "op.key"), key);
    return ["--tls-cert", join(dir, "..", "op.crt"), "--tls-key", join(dir, "..", "op.key")];
  };
  const pair = () => generateSelfSignedCert({ commonName: "node-01", dnsNames: ["node-01"], ipAddresses: ["127.0.0.1"] });

  // What a restart cannot fix exits 2, which the unit's RestartPreventExitStatus keeps from a restart every 5 s.
  for (const [what, spoil, message] of [
    ["an install-code file the installer did not make", (dir: string) => writeFile(join(dir, "install-code"), "AB\u001b[2JCD\n"), /install-code does not hold an install code this installer made/],
    ["a folder where the lock goes", (dir: string) => mkdir(join(dir, "installer.lock")), /installer\.lock is a folder, not a lock file/],
    ...(process.getuid?.() === 0 ? [["a state dir another user owns", (dir: string) => chown(dir, 65534, 65534), /belongs to uid 65534, not to this user \(uid 0\).*; chown it to uid 0, or choose another --state-dir$/s] as const] : []),
    ["a --tls-cert that is not there", async (dir: string) => [...(await tls(dir, "", "")).slice(0, 2).map((a) => a.replace("op.crt", "gone.crt")), "--tls-key", join(dir, "..", "op.key")], /--tls-cert .*gone\.crt cannot be read \(ENOENT\)/],
    ["a --tls-cert that holds no certificate", (dir: string) => tls(dir, "not a certificate\n", pair().keyPem), /--tls-cert .*op\.crt holds no PEM certificate/],
    ["a --tls-key that holds no key", (dir: string) => tls(dir, pair().certPem, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), /--tls-key .*op\.key holds no unencrypted PEM private key/],
    ["a --tls-key of another certificate", (dir: string) => tls(dir, pair().certPem, pair().keyPem), /--tls-key .*op\.key is not the key of --tls-cert .*op\.crt: give the pair/],
    ["a --host-facts file that does not parse", async (dir: string) => (await writeFile(join(dir, "..", "facts.json"), "{ not json"), ["--host-facts", join(dir, "..", "facts.json")]), /host facts file .*facts\.json: /],
  ] as const) {
    test(`a start refused for what a restart cannot fix exits 2, its lock let go: ${what}`, async () => {
      const stateDir = join(await tempDir(), "state");
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      const flags = (await spoil(stateDir)) ?? [];
      const result = await runCli(["serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir, ...flags]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr.trim(), message);
      assert.doesNotMatch(result.stderr, /\u001b/);
      if (!what.includes("lock")) assert.equal(await stat(stateLayout(stateDir).lock).catch(() => "none"), "none", "no lock left for the next start to take over");
    });
  }

  test("a lock left by a killed installer is taken over", async () => {
    const stateDir = await tempDir();
    const first = await start({ stateDir });
    await first.kill9();
    const second = await start({ stateDir });
    assert.match(second.banner, new RegExp(`took over the lock of a stopped installer \\(pid ${first.proc.pid}\\)`));
    assert.equal(second.code, first.code);
  });
});

describe("CLI", () => {
  test("--version and --help", async () => {
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
    const version = await runCli(["--version"]);
    assert.equal(version.code, 0);
    assert.equal(version.stdout, `stratum-installer ${pkg.version}\n`);
    const help = await runCli(["--help"]);
    assert.equal(help.code, 0);
    for (const flag of ["--listen", "--state-dir", "--payload", "--handoff", "--install-record", "--node-yaml", "--firstboot", "--readiness-url", "--readiness-timeout", "--host-facts", "--tls-cert", "--tls-key"]) {
      assert.ok(help.stdout.includes(flag), flag);
    }
    assert.match(help.stdout, /STRATUM_STATE_DIR/);
  });

  for (const [args, message] of [
    [["--bogus"], /Unknown option '--bogus'/],
    [["serve", "--listen", "nowhere"], /--listen must be host:port/],
    [["serve", "--listen", "127.0.0.1:70000"], /--listen must be host:port/],
    [["serve", "--readiness-timeout", "soon"], /--readiness-timeout must be a number/],
    [["serve", "--tls-cert", "/x.pem"], /--tls-cert and --tls-key go together/],
    [["frobnicate"], /unknown command "frobnicate"/],
  ] as const) {
    test(`bad flags exit 2: ${args.join(" ")}`, async () => {
      const result = await runCli([...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    });
  }

  test("env vars stand for flags: STRATUM_LISTEN", async () => {
    const result = await runCli(["serve"], { STRATUM_LISTEN: "bad" });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /got "bad"/);
  });

  test("the bundle runs copied alone into an empty folder", async () => {
    const folder = await tempDir("stratum-alone-");
    const bundle = join(folder, "installer.js");
    await copyFile(BUNDLE, bundle);
    const installer = await start({ bundle, cwd: folder, stateDir: join(folder, "state") });
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
  });
});
