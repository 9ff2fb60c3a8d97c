import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test, type TestContext } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { stateLayout } from "../../core/state/layout.ts";
import { StatusSchema } from "../../handlers/get-status.ts";
import { inProcessApp, type InProcessApp } from "../helpers/app.ts";
import { VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { tempDir, waitFor, writeFirstboot } from "../helpers/installer.ts";
import { assertNoSecret, extractBundle, SECRETS, tlsKey } from "../helpers/support-bundle.ts";

/** The sample node.yaml with every draft secret: the hash in a comment too, the token split over a line break of a double-quoted scalar. */
const [tokenHead, tokenTail] = [SECRETS.joinToken.slice(0, 40), SECRETS.joinToken.slice(40)];
const NODE_YAML = `${VALID_NODE_YAML.replace("admin:\n", `admin:\n  # the old hash was ${SECRETS.passwordHash}\n  password_hash: '${SECRETS.passwordHash}'\n`)}cluster:
  join_token: "${tokenHead}\\
    ${tokenTail}"
`;
const ECHOING_FIRSTBOOT = (exit: number) => `#!/bin/sh\necho "firstboot reads $1"\ncat "$1"\ncat "$1" >&2\nexit ${exit}\n`;

async function installWithSecrets(t: TestContext, firstboot: string, args: string[]): Promise<{ app: InProcessApp; secrets: Record<string, string> }> {
  const folder = await tempDir("stratum-bundle-fb-");
  const app = await inProcessApp(t, { args: ["--firstboot", await writeFirstboot(folder, firstboot), ...args] });
  const key = tlsKey();
  await writeFile(join(app.stateDir, "tls.key"), key);
  const put = await app.request("/v1/installer/config/node.yaml", { method: "PUT", body: NODE_YAML, contentType: "application/yaml" });
  assert.equal(put.status, 200, put.text);
  assert.equal((await app.request("/v1/installer/config")).json.valid, true);
  await app.untilNoBlockers();
  const started = await app.request("/v1/installer/install", { method: "POST" });
  assert.equal(started.status, 202, started.text);
  await waitFor("the verdict", async () => ((await app.request("/v1/installer/install/verdict")).status === 200 ? true : undefined), 30_000);
  return { app, secrets: { ...SECRETS, installCode: app.code, tlsKey: key } };
}

async function fetchBundle(app: InProcessApp, code: string | null = app.code): Promise<Response> {
  const headers: Record<string, string> = code ? { authorization: `Bearer ${code}` } : {};
  return app.app.request("/v1/installer/support-bundle", { headers }, { incoming: { socket: { remoteAddress: "127.0.0.1" }, headers } });
}

async function bundleOf(app: InProcessApp) {
  const response = await fetchBundle(app);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/gzip");
  assert.match(response.headers.get("content-disposition") ?? "", /^attachment; filename="stratum-support-node-01-\d{8}T\d{6}Z\.tar\.gz"$/);
  return extractBundle(Buffer.from(await response.arrayBuffer()));
}

/** Every file the manifest lists is there with its size and SHA-256, and nothing else is. */
function assertManifest(files: Map<string, string>): { phase: string; leftOut: unknown[] } {
  const manifest = JSON.parse(files.get("manifest.json")!) as { phase: string; hostname: string; files: Array<{ path: string; bytes: number; sha256: string }>; leftOut: unknown[] };
  assert.equal(manifest.hostname, "node-01");
  assert.deepEqual(manifest.files.map((f) => f.path).sort(), [...files.keys()].filter((p) => p !== "manifest.json").sort());
  for (const file of manifest.files) {
    const bytes = Buffer.from(files.get(file.path)!, "utf8");
    assert.equal(file.bytes, bytes.length, file.path);
    assert.equal(file.sha256, createHash("sha256").update(bytes).digest("hex"), file.path);
  }
  return manifest;
}

test("after a successful install: every part of the story, every secret replaced by a marker naming it", async (t) => {
  const cloud = await startReadinessServer({ port: 0, scenario: "ready" });
  t.after(() => cloud.close());
  const { app, secrets } = await installWithSecrets(t, ECHOING_FIRSTBOOT(0), ["--readiness-url", cloud.url, "--readiness-interval", "0.05"]);
  const { files } = await bundleOf(app);
  assert.equal(assertManifest(files).phase, "done");
  for (const path of ["status.json", "node.yaml", "host.json", "payload.json", "readiness.json", "attempts/1/steps.json", "attempts/1/verdict.json", "attempts/1/report.json", "attempts/1/events.ndjson", "log/service.log"]) {
    assert.ok(files.has(path), path);
  }
  StatusSchema.parse(JSON.parse(files.get("status.json")!));
  assert.equal(JSON.parse(files.get("attempts/1/verdict.json")!).outcome, "succeeded");
  const nodeYaml = files.get("node.yaml")!;
  assert.match(nodeYaml, /password_hash: "\[redacted: password hash\]"/);
  assert.match(nodeYaml, /join_token: "\[redacted: join token\]"/);
  assert.match(nodeYaml, /# the old hash was \[redacted: password hash\]/);
  assert.match(files.get("attempts/1/events.ndjson")!, /firstboot reads/);
  assertNoSecret(files, secrets);
});

test("after a firstboot that fails echoing its node.yaml, and after a readiness timeout: no secret in any spelling", async (t) => {
  for (const [firstboot, args, code] of [
    [ECHOING_FIRSTBOOT(3), [], "FIRSTBOOT_FAILED"],
    [ECHOING_FIRSTBOOT(0), ["--readiness-timeout", "1"], "READINESS_TIMEOUT"],
  ] as const) {
    const { app, secrets } = await installWithSecrets(t, firstboot, [...args]);
    const { files } = await bundleOf(app);
    assert.equal(assertManifest(files).phase, "failed");
    assert.equal(JSON.parse(files.get("attempts/1/verdict.json")!).code, code);
    assertNoSecret(files, secrets);
  }
});

test("the install code's file removed while the service runs (its code held in memory): the code pasted into the draft is still redacted", async (t) => {
  const app = await inProcessApp(t);
  // An operator's paste at 3 a.m.: the code in a comment of node.yaml (firstboot's output is redacted as it comes).
  const pasted = `${VALID_NODE_YAML}# installer code: ${app.code}\n`;
  assert.equal((await app.request("/v1/installer/config/node.yaml", { method: "PUT", body: pasted, contentType: "application/yaml" })).status, 200);
  await rm(stateLayout(app.stateDir).installCode);
  const { files } = await bundleOf(app);
  assert.match(files.get("node.yaml")!, /# installer code: \[redacted: install code\]/);
  assertNoSecret(files, { installCode: app.code });
});

test("/status answers while a bundle is being read", async (t) => {
  const app = await inProcessApp(t);
  const response = await fetchBundle(app);
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  await reader.read();
  assert.equal((await app.request("/v1/installer/status")).status, 200);
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) size += chunk.value.length;
  assert.ok(size > 0);
});

test("the manifest says the installer's and Node's versions, when (the file name's UTC time) and how it was made, the host name and phase; status.json is GET /status's answer", async (t) => {
  const app = await inProcessApp(t);
  await app.untilNoBlockers();
  const status = await app.request("/v1/installer/status");
  const before = Date.now();
  const response = await fetchBundle(app);
  assert.equal(response.status, 200);
  const name = /filename="stratum-support-node-01-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar\.gz"$/.exec(response.headers.get("content-disposition") ?? "");
  assert.ok(name, response.headers.get("content-disposition") ?? "no Content-Disposition");
  const { files } = await extractBundle(Buffer.from(await response.arrayBuffer()));
  const manifest = assertManifest(files) as unknown as { installer: string; node: string; madeAt: string; madeBy: string; hostname: string; phase: string };
  assert.deepEqual(
    { installer: manifest.installer, node: manifest.node, madeBy: manifest.madeBy, phase: manifest.phase },
    { installer: status.json.version, node: process.version, madeBy: "GET /v1/installer/support-bundle", phase: status.json.phase },
  );
  const madeAt = Date.parse(manifest.madeAt);
  assert.ok(madeAt >= before - 1000 && madeAt <= Date.now(), manifest.madeAt);
  assert.equal(`${name[1]}-${name[2]}-${name[3]}T${name[4]}:${name[5]}:${name[6]}Z`, manifest.madeAt.replace(/\.\d+Z$/, "Z"), "the file name's time is the manifest's, in UTC");
  assert.deepEqual(JSON.parse(files.get("status.json")!), status.json);
});

test("needs the install code", async (t) => {
  const app = await inProcessApp(t);
  assert.equal((await fetchBundle(app, null)).status, 401);
  assert.equal((await fetchBundle(app, "WRONG-CODE-0000")).status, 401);
});

test("a client that goes away mid-bundle: the service goes on, logs that the client went away (no warning: nothing failed), and the next bundle is whole", async (t) => {
  // ≈ 4 MB of events that do not compress, streamed file by file: far more than the stream holds ahead of its reader,
  // so the bundle is far from written when the client leaves, however fast the machine (a log of 600 KB, written to
  // the gzip stream in one piece, could be all made before the client left, and nothing was then cut short).
  const { app } = await installWithSecrets(t, "#!/bin/sh\nhead -c 3000000 /dev/urandom | base64 -w 150\nexit 3\n", []);
  const before = app.log.length;
  const response = await fetchBundle(app);
  const reader = response.body!.getReader();
  await reader.read();
  await reader.cancel(new Error("the client went away"));
  assert.equal((await app.request("/v1/installer/status")).status, 200);
  await waitFor("the abandoned bundle ended", async () => (app.log.some((line) => line.includes("support bundle not sent whole")) ? true : undefined));
  assert.deepEqual(
    app.log.slice(before).map((line) => JSON.parse(line)).map(({ level, message }) => [level, message]),
    [["info", "support bundle not sent whole: the client went away"]],
  );
  const { files } = await bundleOf(app);
  assert.ok(files.get("attempts/1/events.ndjson")!.length > 1_000_000);
});

test("HEAD: the bundle's headers and no body, logged as any request is: no 'not finished' warning for the body a HEAD never sends", async (t) => {
  const app = await inProcessApp(t);
  const made: Promise<unknown>[] = [];
  const supportBundle = app.services.supportBundle.bind(app.services);
  app.services.supportBundle = async () => {
    const bundle = await supportBundle();
    made.push(bundle.manifest);
    return bundle;
  };
  const before = app.log.length;
  const head = await app.request("/v1/installer/support-bundle", { method: "HEAD" });
  assert.deepEqual([head.status, head.headers["content-type"], head.text], [200, "application/gzip", ""]);
  assert.match(String(head.headers["content-disposition"]), /^attachment; filename="stratum-support-node-01-\d{8}T\d{6}Z\.tar\.gz"$/);
  // Settled, and the handler's own reaction to it (registered first) has run.
  await Promise.allSettled(made);
  assert.deepEqual(app.log.slice(before).filter((line) => !line.includes('"level":"info"')), []);
});

test("a bundle that fails as it is made (a read error): a warning with the error, as before a client could go away", async (t) => {
  const app = await inProcessApp(t);
  const failure = new Error("EIO: i/o error, read");
  // What writeSupportBundle does when its build fails: the stream ended with the error, the manifest rejected with it.
  app.services.supportBundle = async () => {
    const stream = new PassThrough();
    const manifest = new Promise<never>((_, reject) => setImmediate(() => (stream.destroy(failure), reject(failure))));
    manifest.catch(() => undefined);
    return { name: "stratum-support-node-01-20261207T000000Z.tar.gz", stream, manifest };
  };
  const response = await fetchBundle(app);
  assert.equal(response.status, 200);
  await assert.rejects(response.arrayBuffer());
  const line = await waitFor("the warning", async () => app.log.find((l) => l.includes("support bundle not finished")));
  assert.deepEqual([JSON.parse(line).level, JSON.parse(line).error], ["warn", failure.message]);
});

test("two bundles at once while an attempt writes events fast: both whole, each file as its manifest says, the attempt going on", async (t) => {
  const folder = await tempDir("stratum-bundle-busy-");
  const stop = join(folder, "stop");
  const firstboot = `#!/bin/sh\ni=0\nwhile [ ! -e '${stop}' ]; do i=$((i+1)); echo "line $i $(head -c 48 /dev/urandom | base64 -w 0)"; done\nexit 3\n`;
  const app = await inProcessApp(t, { args: ["--firstboot", await writeFirstboot(folder, firstboot)] });
  t.after(() => writeFile(stop, ""));
  assert.equal((await app.request("/v1/installer/config/node.yaml", { method: "PUT", body: VALID_NODE_YAML, contentType: "application/yaml" })).status, 200);
  await app.untilNoBlockers();
  assert.equal((await app.request("/v1/installer/install", { method: "POST" })).status, 202);
  const events = stateLayout(app.stateDir).eventsOf(1);
  await waitFor("firstboot's output in the events", async () => ((await readFile(events, "utf8").catch(() => "")).includes("line 2 ") ? true : undefined));
  const [a, b] = await Promise.all([fetchBundle(app), fetchBundle(app)]);
  const [first, second] = await Promise.all([a, b].map(async (response) => extractBundle(Buffer.from(await response.arrayBuffer()))));
  for (const { files } of [first!, second!]) assertManifest(files);
  await writeFile(stop, "");
  await waitFor("the verdict", async () => ((await app.request("/v1/installer/install/verdict")).status === 200 ? true : undefined), 30_000);
  const { files } = await bundleOf(app);
  assert.match(files.get("attempts/1/events.ndjson") ?? "", /line \d+ /);
});

test("a draft's hostile host name (quotes, CR/LF, a header of its own, non-ASCII, a terminal escape) gives a Content-Disposition of safe characters alone", async (t) => {
  const app = await inProcessApp(t);
  const hostile = 'n"1\\r\\nX-Evil: 1; filename=\\"../../etc/passwd\\" \\u00fc\\u202e\\e]0;pwn\\a';
  const put = await app.request("/v1/installer/config/node.yaml", { method: "PUT", body: VALID_NODE_YAML.replace(/^hostname: .*$/m, `hostname: "${hostile}"`), contentType: "application/yaml" });
  assert.equal(put.status, 200, put.text);
  const response = await fetchBundle(app);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-evil"), null);
  assert.match(response.headers.get("content-disposition") ?? "", /^attachment; filename="stratum-support-[A-Za-z0-9._-]+-\d{8}T\d{6}Z\.tar\.gz"$/);
  const { files, folder } = await extractBundle(Buffer.from(await response.arrayBuffer()));
  assert.match(folder, /^stratum-support-[A-Za-z0-9._-]+-\d{8}T\d{6}Z$/);
  const bad = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;
  for (const [path, text] of files) assert.doesNotMatch(text, bad, `${path}: ${JSON.stringify(bad.exec(text)?.[0])} at ${text.search(bad)}: ${JSON.stringify(text.slice(Math.max(0, text.search(bad) - 80), text.search(bad) + 20))}`);
});
