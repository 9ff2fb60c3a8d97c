import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { closeSync, createReadStream, existsSync, openSync } from "node:fs";
import { chmod, copyFile, mkdir, readdir, readFile, rm, stat, symlink, truncate, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, join } from "node:path";
import { test } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { isTempFile, stateLayout } from "../../core/state/layout.ts";
import { VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { BUNDLE, DEMO_HOST_FACTS, bundleNode, harness, runCli, tempDir, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { assertNoSecret, extractBundle, SECRETS } from "../helpers/support-bundle.ts";
import { fill, noTmpfs, refusal, REFUSES_READ, tmpfsFor } from "../helpers/full-disk.ts";

const lab = harness();

const NODE_YAML = `${VALID_NODE_YAML.replace("admin:\n", `admin:\n  password_hash: "${SECRETS.passwordHash}"  # ${SECRETS.passwordHash}\n`)}cluster:\n  join_token: ${SECRETS.joinToken}\n`;

/** `support-bundle --state-dir` into a fresh folder; the bundle extracted. */
async function cliBundle(stateDir: string, payload: string) {
  const out = await tempDir("stratum-bundle-cli-");
  const file = join(out, "b.tar.gz");
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", file, "--payload", payload, "--host-facts", join(import.meta.dirname, "../../demo/host-facts.json")]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /b\.tar\.gz: \d+ files, phase /);
  return { file, ...(await extractBundle(file)) };
}

async function secretsOf(installer: RunningInstaller): Promise<Record<string, string>> {
  return { ...SECRETS, installCode: installer.code, tlsKey: await readFile(stateLayout(installer.stateDir).tlsKey, "utf8") };
}

test("support-bundle --state-dir: the service running, killed -9 mid-attempt, restarted, its store kept aside: no secret in any, the lock left alone", async () => {
  const folder = await tempDir("stratum-bundle-e2e-");
  const stateDir = join(folder, "state");
  const payload = join(folder, "payload");
  await (await import("../../demo/make-payload.ts")).makePayload(payload);
  // It echoes node.yaml, the token's secret part alone, and the token and the hash in base64.
  const firstboot = await writeFirstboot(
    folder,
    [
      "#!/bin/sh",
      'cat "$1"',
      `t=$(sed -n 's/.*join_token: //p' "$1"); echo "secret: \${t##*:}"; printf %s "$t" | base64 -w0; echo`,
      `printf %s '${SECRETS.passwordHash}' | base64 -w0; echo`,
      "exec sleep 30",
      "",
    ].join("\n"),
  );
  const args = ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml")];
  const running = await lab.start({ stateDir, payload, args });
  const secrets = await secretsOf(running);
  assert.equal((await running.request("/v1/installer/config/node.yaml", { method: "PUT", body: NODE_YAML, contentType: "application/yaml" })).status, 200);
  await waitFor("no blockers", async () => ((await running.request("/v1/installer/status")).json.blockers ? undefined : true));
  assert.equal((await running.request("/v1/installer/install", { method: "POST" })).status, 202);
  await waitFor("firstboot", async () => ((await running.request("/v1/installer/status")).json.step === "firstboot" ? true : undefined));
  await waitFor("its output", async () => ((await running.request("/v1/installer/install/report")).json.firstbootTail.length > 0 ? true : undefined));

  const served = (await running.request("/v1/installer/install/events?attempt=1")).text;
  for (const secret of [SECRETS.joinToken, SECRETS.passwordHash]) {
    for (const spelled of [secret, Buffer.from(secret).toString("base64")]) assert.ok(!served.includes(spelled), "the service's own events redact firstboot's echo, base64 included");
  }

  const lock = await readFile(stateLayout(stateDir).lock, "utf8");
  const live = await cliBundle(stateDir, payload);
  assert.equal(JSON.parse(live.files.get("manifest.json")!).phase, "installing");
  assert.ok(live.files.get("attempts/1/events.ndjson")!.includes("[redacted"), "firstboot's echo of node.yaml is in, redacted");
  assertNoSecret(live.files, secrets);
  assert.equal(await readFile(stateLayout(stateDir).lock, "utf8"), lock, "the running service's lock is as it was");

  await running.kill9();
  const crashed = await cliBundle(stateDir, payload);
  assert.equal(JSON.parse(crashed.files.get("attempts/1/report.json")!).state, "running");
  assertNoSecret(crashed.files, secrets);

  const restarted = await lab.start({ stateDir, payload, args });
  await restarted.stop();
  const stopped = await cliBundle(stateDir, payload);
  assert.equal(JSON.parse(stopped.files.get("attempts/1/verdict.json")!).code, "INTERRUPTED");
  assert.match(stopped.files.get("log/service.log")!, /"message":"listening"/);
  assertNoSecret(stopped.files, secrets);
  const summary = await runCli(["support-bundle", "--summary", stopped.file]);
  assert.equal(summary.code, 0, summary.stderr);
  assert.match(summary.stdout, /node: +node-01/);
  assert.match(summary.stdout, /phase: +failed/);
  assert.match(summary.stdout, /#1 install failed INTERRUPTED at firstboot/);
  assert.match(summary.stdout, /failing step: firstboot of attempt 1/);
  assert.match(summary.stdout, /its last lines:\n {4}\| /);

  const store = stateLayout(stateDir).store;
  await truncate(store, Math.floor((await readFile(store)).length / 2));
  const aside = await lab.start({ stateDir, payload, args });
  await aside.stop();
  const recovered = await cliBundle(stateDir, payload);
  assert.ok([...recovered.files.keys()].some((path) => path.startsWith("state/installer.json.corrupt-")), "the store kept aside is in");
  assert.match(recovered.files.get("notices.json")!, /kept aside/);
  assertNoSecret(recovered.files, secrets);
});

test("support-bundle: a state dir that is not there, or a file that is no bundle, exits 2 saying so", async () => {
  const made = await runCli(["support-bundle", "--state-dir", "/nonexistent/stratum-state"]);
  assert.equal(made.code, 2);
  assert.match(made.stderr, /no state dir at \/nonexistent\/stratum-state/);
  const summary = await runCli(["support-bundle", "--summary", join(import.meta.dirname, "../../package.json")]);
  assert.equal(summary.code, 2);
  assert.match(summary.stderr, /cannot read .*package\.json as a support bundle \(\.tar\.gz\)/);
});

test("support-bundle as a user who may not read the state dir (0700, root's): says which file, that it needs the state dir's owner or root, as status says it, exit 2 as status", { skip: process.getuid?.() !== 0 ? "needs root to run the installer as another user" : undefined }, async () => {
  const folder = await tempDir();
  await chmod(folder, 0o755);
  const stateDir = join(folder, "state");
  await mkdir(stateDir, { mode: 0o700 });
  await writeFile(join(stateDir, "install-code"), "ABCD-EFGH-JKMN\n");
  const nobody = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }));
  const asNobody = async (args: string[]) => {
    const proc = spawn(await bundleNode(), [BUNDLE, ...args], { cwd: "/", uid: nobody, gid: nobody, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (d) => (stderr += d));
    const [code] = (await once(proc, "close")) as [number | null];
    return { code, stderr };
  };
  const status = await asNobody(["status", "--state-dir", stateDir]);
  const made = await asNobody(["support-bundle", "--state-dir", stateDir, "-o", "-"]);
  const needs = `the state dir ${stateDir} is readable by its owner or root alone: run it with sudo (or as that user)`;
  assert.equal(status.code, 2, status.stderr);
  assert.equal(status.stderr, `status: cannot read ${join(stateDir, "install-code")} (EACCES: permission denied): ${needs}\n`);
  assert.equal(made.code, 2, made.stderr);
  assert.match(made.stderr, new RegExp(`^installer: cannot read ${stateDir}/[a-z.-]+ \\(EACCES: permission denied\\): ${needs.replace(/[.()]/g, "\\$&")}\n$`));
  // Its parent closed to this user too: not "no state dir" (it is there), and the folder that refuses is named, not the state dir.
  await chmod(folder, 0o700);
  const parentNeeds = `the folder ${folder}, above the state dir ${stateDir}, does not let this user (uid ${nobody}) through: run it with sudo (or as a user it lets through)`;
  const closed = await asNobody(["support-bundle", "--state-dir", stateDir, "-o", "-"]);
  assert.equal(closed.code, 2, closed.stderr);
  assert.equal(closed.stderr, `installer: cannot read ${stateDir} (EACCES: permission denied): ${parentNeeds}\n`);
  const closedStatus = await asNobody(["status", "--state-dir", stateDir]);
  assert.equal(closedStatus.code, 2, closedStatus.stderr);
  assert.equal(closedStatus.stderr, `status: cannot read ${join(stateDir, "install-code")} (EACCES: permission denied): ${parentNeeds}\n`);
});

test("support-bundle -o - with stdout a terminal (a pty from util-linux's script): refused, exit 2, saying how to redirect it; none of the .tar.gz reaches the terminal", async () => {
  const stateDir = await tempDir();
  const command = `exec '${await bundleNode()}' '${BUNDLE}' support-bundle --state-dir '${stateDir}' --host-facts '${DEMO_HOST_FACTS}' -o -`;
  const proc = spawn("script", ["--quiet", "--return", "--command", command, "/dev/null"], { stdio: ["ignore", "pipe", "pipe"] });
  lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
  let output = "";
  proc.stdout.setEncoding("latin1").on("data", (d: string) => (output += d));
  const [code] = (await once(proc, "close")) as [number | null];
  assert.equal(code, 2, output);
  assert.ok(!output.includes("\x1f\x8b"), "no gzip stream on the terminal");
  assert.match(output, /^installer: support-bundle -o - writes the bundle \(a \.tar\.gz\) to stdout, which is a terminal: redirect it \(-o - > FILE\), pipe it, or give -o FILE\r?\n$/);
  // The terminal by its own name: refused too, never written to.
  const tty = spawn("script", ["--quiet", "--return", "--command", command.replace(/-o -$/, "-o /dev/tty"), "/dev/null"], { stdio: ["ignore", "pipe", "pipe"] });
  lab.defer(() => tty.exitCode === null && tty.kill("SIGKILL"));
  let ttyOutput = "";
  tty.stdout.setEncoding("latin1").on("data", (d: string) => (ttyOutput += d));
  const [ttyCode] = (await once(tty, "close")) as [number | null];
  assert.equal(ttyCode, 2, ttyOutput);
  assert.ok(!ttyOutput.includes("\x1f\x8b"), "no gzip stream on the terminal");
  assert.match(ttyOutput, /^installer: support-bundle -o \/dev\/tty names a terminal/);
});

test("support-bundle (as root) never writes through a file planted where its temp file would be: a link to another file, or a file another user made", async () => {
  const stateDir = await tempDir("stratum-sb-planted-");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const out = await tempDir("stratum-sb-out-");
  await mkdir(out, { recursive: true });
  const victim = join(out, "victim");
  await writeFile(victim, "precious\n", { mode: 0o600 });
  await symlink(victim, join(out, "linked.tar.gz.part"));
  await writeFile(join(out, "planted.tar.gz.part"), "", { mode: 0o666 });
  for (const name of ["linked.tar.gz", "planted.tar.gz"]) {
    const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, name), "--host-facts", DEMO_HOST_FACTS]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal((await stat(join(out, name))).mode & 0o777, 0o600, `${name}: the bundle is the installer's own file`);
  }
  assert.equal(await readFile(victim, "utf8"), "precious\n", "the linked file is untouched");
  assert.equal((await stat(join(out, "planted.tar.gz.part"))).size, 0, "the planted file is not written into");
});

test("support-bundle --tls-key naming a key it cannot read: the bundle is made, and stderr and the manifest say that key is redacted by its shape alone", async () => {
  const stateDir = await tempDir("stratum-sb-unread-key-");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const out = await tempDir("stratum-sb-unread-out-");
  const key = join(out, "gone.key");
  const file = join(out, "b.tar.gz");
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", file, "--tls-key", key, "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(made.code, 0, made.stderr);
  const unread = `${key} (the operator's TLS private key, --tls-key) is gone`;
  assert.equal(made.stderr, `installer: warning: ${unread}: a secret only it holds is redacted by its shape alone, not by name; read the bundle before sending it\n`);
  const { files } = await extractBundle(file);
  assert.deepEqual(JSON.parse(files.get("manifest.json")!).redaction.unread, [unread]);
  const summary = await runCli(["support-bundle", "--summary", file]);
  assert.match(summary.stdout, new RegExp(`\\n  unread secret files \\(their secrets redacted by shape alone: read the bundle before sending it\\):\\n    ${unread.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`));
});

test("support-bundle: a bundle that cannot be written (stdout on a full disk, a folder that takes no file) fails saying where and why, exit 1, no stack trace, no partial file left", async (t) => {
  const stateDir = await tempDir("stratum-sb-full-");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  if (existsSync("/dev/full")) {
    const full = openSync("/dev/full", "w");
    t.after(() => closeSync(full));
    const proc = spawn(await bundleNode(), [BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", "-", "--host-facts", DEMO_HOST_FACTS], { stdio: ["ignore", full, "pipe"] });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const [code] = (await once(proc, "close")) as [number | null];
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^installer: cannot write to stdout: ENOSPC: no space left on device[^\n]*\n$/);
    // Named with -o, a device that refuses the write: named, with why and what to do, not a bare ENOSPC.
    const device = await runCli(["support-bundle", "--state-dir", stateDir, "-o", "/dev/full", "--host-facts", DEMO_HOST_FACTS]);
    assert.equal(device.code, 1, device.stderr);
    assert.match(device.stderr, /^installer: cannot write the bundle to \/dev\/full \(ENOSPC: no space left on its file system\): free space on its file system, or give -o another file \(- writes it to stdout\)\n$/);
  }
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", "/proc/", "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(made.code, 1, made.stderr);
  assert.match(made.stderr, /^installer: cannot write the bundle to \/proc\/[^ ]+\.tar\.gz \(ENOENT: [^\n]*\): check that its folder exists and takes new files from this user, or give -o another folder \(- writes it to stdout\)\n$/);
  assert.equal(made.stdout, "");
});

test("support-bundle -o into a folder on a full disk: exit 1 naming the bundle's file, why and what to do; no partial file left; once space frees it is made", { skip: noTmpfs }, async (t) => {
  const stateDir = await tempDir("stratum-sb-full-");
  const mount = join(await tempDir("stratum-sb-full-"), "mnt");
  if (!(await tmpfsFor(t, mount, "64k"))) return;
  const free = fill(mount);
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", mount, "--host-facts", DEMO_HOST_FACTS]);
  await free();
  assert.equal(made.code, 1, made.stderr);
  const file = `${mount}/stratum-support-[^ /]+\\.tar\\.gz`;
  assert.match(made.stderr, new RegExp(`^installer: cannot write the bundle to ${file} \\(ENOSPC: no space left on its file system\\): free space on its file system, or give -o another folder \\(- writes it to stdout\\)\n$`));
  assert.deepEqual(await readdir(mount), []);
  assert.equal((await runCli(["support-bundle", "--state-dir", stateDir, "-o", mount, "--host-facts", DEMO_HOST_FACTS])).code, 0);
});

test("support-bundle -o into a folder on a read-only file system: exit 1, the remedy a remount (not free space) or another -o; no partial file left", { skip: noTmpfs }, async (t) => {
  const stateDir = await tempDir("stratum-sb-ro-");
  const mount = join(await tempDir("stratum-sb-ro-"), "mnt");
  if (!(await tmpfsFor(t, mount, "64k"))) return;
  execFileSync("mount", ["-o", "remount,ro", mount]);
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", mount, "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(made.code, 1, made.stderr);
  const file = `${mount}/stratum-support-[^ /]+\\.tar\\.gz`;
  assert.match(made.stderr, new RegExp(`^installer: cannot write the bundle to ${file} \\(EROFS: its file system is read-only\\): remount its file system read-write, or give -o another folder \\(- writes it to stdout\\)\n$`));
  assert.deepEqual(await readdir(mount), []);
});

test("support-bundle --state-dir alone: the payload folder and host facts are the ones the service last started with (last-start.json); flags still win", async () => {
  const folder = await tempDir("stratum-bundle-ranwith-");
  const stateDir = join(folder, "state");
  const payload = join(folder, "payload");
  await (await import("../../demo/make-payload.ts")).makePayload(payload);
  const hostFacts = join(folder, "host-facts.json");
  await copyFile(DEMO_HOST_FACTS, hostFacts);
  const installer = await lab.start({ stateDir, payload, args: ["--host-facts", hostFacts] });
  await waitFor("the payload checked", async () => ((await installer.request("/v1/installer/status")).json.blockers ? undefined : true));
  await installer.stop();
  const demo = JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8"));

  const out = await tempDir("stratum-bundle-cli-");
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "b.tar.gz")]);
  assert.equal(made.code, 0, made.stderr);
  const { files } = await extractBundle(join(out, "b.tar.gz"));
  const facts = { payload: JSON.parse(files.get("payload.json")!), host: JSON.parse(files.get("host.json")!) };
  assert.deepEqual([facts.payload.folder, facts.payload.state], [payload, "ready"], files.get("payload.json"));
  assert.deepEqual([facts.host.hostname, facts.host.interfaces.map((i: { name: string }) => i.name)], [demo.hostname, demo.interfaces.map((i: { name: string }) => i.name)]);
  assert.equal(JSON.parse(files.get("manifest.json")!).madeBy, `support-bundle --state-dir ${stateDir} (--payload ${payload} --host-facts ${hostFacts}: as the service last started)`, "the bundle says where its facts came from");

  // The recorded facts file gone (a state dir moved, a demo's folder cleaned): still a bundle, of this machine, saying so.
  await rm(hostFacts);
  const gone = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "d.tar.gz")]);
  assert.equal(gone.code, 0, gone.stderr);
  assert.match(gone.stderr, /^installer: the host facts file the service last started with cannot be read \(.*ENOENT.*\); the bundle holds this machine's\n$/);
  const machine = await extractBundle(join(out, "d.tar.gz"));
  assert.equal(JSON.parse(machine.files.get("host.json")!).hostname, hostname());
  assert.equal(JSON.parse(machine.files.get("manifest.json")!).madeBy, `support-bundle --state-dir ${stateDir} (--payload ${payload}: as the service last started)`);

  // -o with a trailing slash names a folder: made when it is not there yet (it tried to write "new/.part").
  const into = await runCli(["support-bundle", "--state-dir", stateDir, "-o", `${join(out, "new")}/`]);
  assert.equal(into.code, 0, into.stderr);
  assert.match(into.stdout, new RegExp(`^${join(out, "new")}/stratum-support-[^/]+\\.tar\\.gz: `));
  assert.equal((await readdir(join(out, "new"))).filter((name) => name.endsWith(".tar.gz")).length, 1);
  const file = join(out, "b.tar.gz");
  const notFolder = await runCli(["support-bundle", "--state-dir", stateDir, "-o", `${file}/`]);
  assert.equal(notFolder.code, 2);
  assert.equal(notFolder.stderr, `installer: the bundles' folder ${file}/ cannot be made: ${file} is a file, not a folder (EEXIST)\n`);

  const elsewhere = join(folder, "no-payload-here");
  const flagged = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "c.tar.gz"), "--payload", elsewhere]);
  assert.equal(flagged.code, 0, flagged.stderr);
  assert.equal(JSON.parse((await extractBundle(join(out, "c.tar.gz"))).files.get("payload.json")!).folder, elsewhere);
});

test("support-bundle -o DIR never replaces a bundle there: two made within one second are both kept (-2)", async () => {
  const folder = await tempDir("stratum-bundle-twice-");
  const stateDir = join(folder, "state");
  const installer = await lab.start({ stateDir });
  await installer.stop();
  const out = join(folder, "out");
  await mkdir(out);
  const first = await runCli(["support-bundle", "--state-dir", stateDir, "-o", out]);
  const prefix = /stratum-support-(.*)-\d{8}T\d{6}Z\.tar\.gz: /.exec(first.stdout)?.[1];
  assert.ok(prefix, first.stdout + first.stderr);
  // Whatever second the next bundle is made in, a file of that name is there already.
  const name = (at: number) => `stratum-support-${prefix}-${new Date(at).toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "")}.tar.gz`;
  const now = Date.now();
  const taken = Array.from({ length: 120 }, (_, i) => name(now + i * 1000)).filter((file) => !first.stdout.includes(file));
  for (const file of taken) await writeFile(join(out, file), "someone's bundle\n");
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", out]);
  assert.equal(made.code, 0, made.stderr);
  const written = /^(.*): \d+ files/.exec(made.stdout)?.[1];
  assert.ok(written?.endsWith("-2.tar.gz"), made.stdout);
  assert.ok((await extractBundle(/^(.*): \d+ files/.exec(first.stdout)![1]!)).files.has("manifest.json"), "the first bundle kept whole");
  for (const file of taken) assert.equal(await readFile(join(out, file), "utf8"), "someone's bundle\n", `${file} kept`);
  assert.ok((await extractBundle(written!)).files.has("manifest.json"));
  assert.deepEqual((await readdir(out)).filter(isTempFile), []);
});

test("support-bundle --state-dir alone, of a service started with --tls-key: the operator's key its firstboot printed is redacted, as the service's own bundle redacts it", async () => {
  const folder = await tempDir("stratum-bundle-opkey-");
  const stateDir = join(folder, "state");
  const payload = join(folder, "payload");
  await (await import("../../demo/make-payload.ts")).makePayload(payload);
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "node-01", dnsNames: ["node-01"], ipAddresses: ["127.0.0.1"] });
  await writeFile(join(folder, "op.crt"), certPem);
  await writeFile(join(folder, "op.key"), keyPem);
  // A firstboot that installs the node's certificate for the cloud, and prints the key as it goes.
  const firstboot = await writeFirstboot(folder, `#!/bin/sh\ncat '${join(folder, "op.key")}'\nexit 1\n`);
  const args = ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--tls-cert", join(folder, "op.crt"), "--tls-key", join(folder, "op.key")];
  const installer = await lab.start({ stateDir, payload, args });
  assert.equal((await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: VALID_NODE_YAML, contentType: "application/yaml" })).status, 200);
  await waitFor("no blockers", async () => ((await installer.request("/v1/installer/status")).json.blockers ? undefined : true));
  assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
  await waitFor("the attempt failed", async () => ((await installer.request("/v1/installer/status")).json.phase === "failed" ? true : undefined));
  await installer.stop();

  const out = await tempDir("stratum-bundle-cli-");
  const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "b.tar.gz")]);
  assert.equal(made.code, 0, made.stderr);
  const { files } = await extractBundle(join(out, "b.tar.gz"));
  // The service redacted the key as firstboot printed it (it serves with it): the bundle holds its marker, and no line of the key.
  assert.match(files.get("attempts/1/report.json")!, /\[redacted\]/);
  assertNoSecret(files, { tlsKey: keyPem });
});

test("support-bundle -o naming no regular file (a link to /dev/null, a named pipe, /proc/self/fd/1 as /dev/stdout is): the bundle is written into it, never a file made in its place", async () => {
  const stateDir = await tempDir("stratum-sb-device-");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const out = await tempDir("stratum-sb-device-out-");
  await mkdir(out, { recursive: true });
  await symlink("/dev/null", join(out, "null"));
  execFileSync("mkfifo", [join(out, "fifo")]);
  const toNull = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "null"), "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(toNull.code, 0, toNull.stderr);
  assert.ok((await stat(join(out, "null"))).isCharacterDevice(), "the link to /dev/null is still that");
  const reader = spawn("cat", [join(out, "fifo")], { stdio: ["ignore", "pipe", "ignore"] });
  lab.defer(() => reader.exitCode === null && reader.kill("SIGKILL"));
  const piped: Buffer[] = [];
  reader.stdout.on("data", (d: Buffer) => piped.push(d));
  const read = once(reader, "close");
  const toFifo = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "fifo"), "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(toFifo.code, 0, toFifo.stderr);
  await read;
  assert.ok((await stat(join(out, "fifo"))).isFIFO(), "the named pipe is still one");
  assert.ok((await extractBundle(Buffer.concat(piped))).files.has("manifest.json"), "the bundle came through the pipe");
  assert.deepEqual((await readdir(out)).sort(), ["fifo", "null"], "no temp file left beside them");
  const proc = spawn(await bundleNode(), [BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", "/proc/self/fd/1", "--host-facts", DEMO_HOST_FACTS], { stdio: ["ignore", "pipe", "pipe"] });
  const stdout: Buffer[] = [];
  let stderr = "";
  proc.stdout.on("data", (d: Buffer) => stdout.push(d));
  proc.stderr.on("data", (d) => (stderr += d));
  const [code] = (await once(proc, "close")) as [number | null];
  assert.equal(code, 0, stderr);
  assert.ok((await extractBundle(Buffer.concat(stdout))).files.has("manifest.json"), "the bundle came on stdout");
  // Into stderr: the bundle alone there, no line of the installer's after it.
  const toStderr = spawn(await bundleNode(), [BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", "/dev/stderr", "--host-facts", DEMO_HOST_FACTS], { stdio: ["ignore", "ignore", "pipe"] });
  const stderrBytes: Buffer[] = [];
  toStderr.stderr.on("data", (d: Buffer) => stderrBytes.push(d));
  const [stderrCode] = (await once(toStderr, "close")) as [number | null];
  assert.equal(stderrCode, 0);
  assert.ok((await extractBundle(Buffer.concat(stderrBytes))).files.has("manifest.json"), "the bundle came on stderr, nothing after it");
  // A descriptor above stderr is Node's own (its event loop's): written into, it crashed the process.
  const own = await runCli(["support-bundle", "--state-dir", stateDir, "-o", "/dev/fd/7", "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(own.code, 2, own.stderr);
  assert.match(own.stderr, /^installer: support-bundle -o \/dev\/fd\/7 names a descriptor above stderr, which is the installer's own: /);
});

test("support-bundle -o into the state dir (itself, a file in it, a folder below it, or run from it without -o): refused, exit 2, the state dir as it was", async () => {
  const stateDir = await tempDir("stratum-sb-into-state-");
  await mkdir(join(stateDir, "events"), { recursive: true, mode: 0o700 });
  const before = (await readdir(stateDir, { recursive: true })).sort();
  for (const [output, cwd] of [[stateDir, undefined], [join(stateDir, "b.tar.gz"), undefined], [`${join(stateDir, "events")}/`, undefined], [undefined, stateDir]] as const) {
    const made = await runCli(["support-bundle", "--state-dir", stateDir, ...(output ? ["-o", output] : []), "--host-facts", DEMO_HOST_FACTS], {}, cwd);
    assert.equal(made.code, 2, `${output ?? cwd}: ${made.stderr}`);
    assert.match(made.stderr, /^installer: support-bundle only reads the state dir: it writes no bundle into it \([^\n]*\); give -o another folder \(- writes it to stdout\)\n$/);
  }
  // A folder not there yet, named through a link to the state dir: the link is followed as mkdir will follow it.
  const elsewhere = await tempDir("stratum-sb-link-to-state-");
  await symlink(stateDir, join(elsewhere, "state"));
  for (const output of [`${join(elsewhere, "state", "new")}/`, join(elsewhere, "state", "new", "deeper", "b.tar.gz")]) {
    const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", output, "--host-facts", DEMO_HOST_FACTS]);
    assert.equal(made.code, 2, `${output}: ${made.stderr}`);
    assert.match(made.stderr, /^installer: support-bundle only reads the state dir: it writes no bundle into it /);
  }
  const toStdout = await runCli(["support-bundle", "--state-dir", ".", "-o", "-", "--host-facts", DEMO_HOST_FACTS], {}, stateDir);
  assert.equal(toStdout.code, 0, `-o - run from the state dir: ${toStdout.stderr}`);
  assert.deepEqual((await readdir(stateDir, { recursive: true })).sort(), before, "nothing written into the state dir");
});

test("support-bundle -o - (or -o a named pipe) whose reader leaves before the end (`| head -c 10`): exit 1 saying the bundle it got is cut, not 0 as for a whole one", async () => {
  const stateDir = await tempDir("stratum-sb-cut-");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  // A service log that does not compress: the bundle is well past a pipe's 64 KiB, so a reader gone after its first
  // bytes leaves writes that fail.
  const noise = randomBytes(600_000).toString("base64").match(/.{1,200}/g)!;
  await writeFile(stateLayout(stateDir).serviceLog, noise.map((text) => `${JSON.stringify({ time: "2026-12-07T09:00:00.000Z", level: "info", message: text })}\n`).join(""), { mode: 0o600 });
  const cutShort = async (output: string, reader: () => NodeJS.ReadableStream, stdout: "pipe" | "ignore") => {
    const proc = spawn(await bundleNode(), [BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", output, "--host-facts", DEMO_HOST_FACTS], { stdio: ["ignore", stdout, "pipe"] });
    lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const source = stdout === "pipe" ? proc.stdout! : reader();
    // The reader takes the first bytes and goes away, as `head -c 10` does.
    await once(source, "data");
    (source as NodeJS.ReadableStream & { destroy(): void }).destroy();
    const [code] = (await once(proc, "close")) as [number | null];
    return { code, stderr };
  };
  const piped = await cutShort("-", () => process.stdin, "pipe");
  assert.equal(piped.code, 1, piped.stderr);
  assert.match(piped.stderr, /^installer: stdout closed before the whole bundle was written: what was read of it is cut, not a whole \.tar\.gz; give -o FILE \(or -o DIR\) to keep it whole\n$/);
  const out = await tempDir("stratum-sb-cut-out-");
  await mkdir(out, { recursive: true });
  const fifo = join(out, "fifo");
  execFileSync("mkfifo", [fifo]);
  const fromFifo = await cutShort(fifo, () => createReadStream(fifo), "ignore");
  assert.equal(fromFifo.code, 1, fromFifo.stderr);
  assert.equal(fromFifo.stderr, `installer: the reader of ${fifo} went away before the whole bundle was written: what was read of it is cut, not a whole .tar.gz; give -o FILE (or -o DIR) to keep it whole\n`);
});

/** A state dir whose bundle takes a second or more to write: 12 MB of events that do not compress (the bundle keeps 10 of them). */
async function slowToBundle(prefix: string): Promise<string> {
  const stateDir = await tempDir(prefix);
  await mkdir(stateLayout(stateDir).events, { recursive: true, mode: 0o700 });
  const line = (seq: number) => `${JSON.stringify({ seq, attempt: 1, time: "2026-12-07T09:00:00.000Z", type: "step.log", step: "firstboot", level: "info", message: randomBytes(60).toString("base64") })}\n`;
  await writeFile(stateLayout(stateDir).eventsOf(1), Array.from({ length: 60_000 }, (_, i) => line(i + 1)).join(""), { mode: 0o600 });
  return stateDir;
}

test("support-bundle stopped while it writes the bundle (Ctrl-C, SIGTERM, the terminal gone): no partial file left beside it, exit 128 + the signal's number, one line saying no bundle was written", async () => {
  const stateDir = await slowToBundle("stratum-sb-stopped-");
  /** A run stopped by `signal` once its temp file is there; undefined when it wrote its whole bundle before the signal came. */
  const stopped = async (signal: NodeJS.Signals) => {
    const out = await tempDir("stratum-sb-stopped-out-");
    const proc = spawn(await bundleNode(), [BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", out, "--host-facts", DEMO_HOST_FACTS], { stdio: ["ignore", "pipe", "pipe"] });
    lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const closed = once(proc, "close");
    await waitFor("the bundle's temp file", async () => ((await readdir(out)).some(isTempFile) || proc.exitCode !== null ? true : undefined));
    proc.kill(signal);
    const [code] = (await closed) as [number | null];
    return code === 0 ? undefined : { code, stderr, left: await readdir(out) };
  };
  for (const [signal, exit] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    // A machine fast enough to write the bundle between the look that found its temp file and the signal: again.
    let run: Awaited<ReturnType<typeof stopped>>;
    for (let tries = 0; run === undefined && tries < 5; tries++) run = await stopped(signal);
    assert.ok(run, `${signal}: the bundle was written whole before the signal came, five times`);
    assert.equal(run.code, exit, `${signal}: ${run.stderr}`);
    assert.deepEqual(run.left, [], signal);
    assert.equal(run.stderr, `installer: stopped (${signal}): no bundle written\n`);
  }
});

for (const into of ["FILE", "DIR"] as const) {
  test(`support-bundle -o ${into} killed -9 while it writes: its temp file, left in the folder, is removed by the next support-bundle -o ${into} (a bundle named by its time included); a live process's is kept`, async () => {
    const stateDir = await slowToBundle("stratum-sb-killed-");
    const out = await tempDir("stratum-sb-killed-out-");
    const file = join(out, "b.tar.gz");
    const target = into === "FILE" ? file : `${out}/`;
    const bundles = async () => (await readdir(out)).filter((name) => !isTempFile(name));
    /** A run killed -9 once its temp file is there; undefined when it wrote its whole bundle before. */
    const killed = async () => {
      const proc = spawn(await bundleNode(), [BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", target, "--host-facts", DEMO_HOST_FACTS], { stdio: "ignore" });
      lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
      const closed = once(proc, "close");
      await waitFor("the bundle's temp file", async () => ((await readdir(out)).length > 0 || proc.exitCode !== null ? true : undefined));
      proc.kill("SIGKILL");
      await closed;
      // Killed after the rename (the bundle whole, its temp file gone): again.
      await Promise.all((await bundles()).map((name) => rm(join(out, name), { force: true })));
      const left = await readdir(out);
      return left.length > 0 ? left : undefined;
    };
    let left: string[] | undefined;
    for (let tries = 0; left === undefined && tries < 5; tries++) left = await killed();
    assert.ok(left, "the bundle was written whole before the kill, five times");
    assert.equal(left.length, 1, `kill -9 leaves the temp file: ${left.join(", ")}`);
    // Another support-bundle -o ${into} still writing: its temp file is its own.
    const live = join(out, left[0]!.replace(/\.\d+\.[0-9a-f]{12}\.tmp$/, `.${process.pid}.0123456789ab.tmp`));
    await writeFile(live, "a live writer's\n");
    // A later run's bundle has another name in a folder: another time, here another host name (not the clock's second).
    const facts = join(await tempDir("stratum-sb-killed-facts-"), "host.json");
    await writeFile(facts, JSON.stringify({ ...JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8")), hostname: "node-77" }));
    const made = await runCli(["support-bundle", "--state-dir", stateDir, "-o", target, "--host-facts", facts]);
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual((await readdir(out)).filter(isTempFile), [basename(live)]);
    assert.equal((await bundles()).length, 1);
    assert.equal(await readFile(live, "utf8"), "a live writer's\n");
  });
}

test("support-bundle meeting a file it cannot read (not missing, not refused by permissions: an I/O error): exit 1 naming the file and its error; -o FILE leaves no FILE, -o - and -o DEVICE say that what they got is no whole bundle", { skip: refusal ? undefined : `${REFUSES_READ} reads or is not there` }, async () => {
  const stateDir = await tempDir("stratum-sb-eio-");
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  // The install code: a secret the bundle must know to redact it everywhere, not a file it may leave out.
  const installCode = stateLayout(stateDir).installCode;
  await symlink(REFUSES_READ, installCode);
  const out = await tempDir("stratum-sb-eio-out-");
  const said = `installer: cannot read ${installCode} (${refusal})`;
  const toFile = await runCli(["support-bundle", "--state-dir", stateDir, "-o", join(out, "b.tar.gz"), "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(toFile.code, 1);
  assert.equal(toFile.stderr, `${said}: no bundle written\n`);
  assert.deepEqual(await readdir(out), []);
  const toStdout = await runCli(["support-bundle", "--state-dir", stateDir, "-o", "-", "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(toStdout.code, 1);
  assert.equal(toStdout.stderr, `${said}: the bundle on stdout is incomplete, not a whole .tar.gz\n`);
  const toDevice = await runCli(["support-bundle", "--state-dir", stateDir, "-o", "/dev/null", "--host-facts", DEMO_HOST_FACTS]);
  assert.equal(toDevice.code, 1);
  assert.equal(toDevice.stderr, `${said}: what went into /dev/null is incomplete, not a whole .tar.gz\n`);
});
