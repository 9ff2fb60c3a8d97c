import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, symlinkSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { test } from "node:test";
import { stateLayout } from "../../../core/state/layout.ts";
import type { AttemptRecord, StoreData } from "../../../core/state/records.ts";
import { readState, writeSupportBundle, type Manifest } from "../../../core/support/index.ts";
import { redactedEvents } from "../../../core/support/events.ts";
import { createBundleRedactor, operatorSecrets } from "../../../core/support/secrets.ts";
import { refusal, REFUSES_READ } from "../../helpers/full-disk.ts";
import { tempDir } from "../../helpers/installer.ts";
import { assertNoSecret, extractBundle, SECRETS, tlsKey } from "../../helpers/support-bundle.ts";

const OLD_TOKEN = `STRATUM1:${"a7".repeat(32)}:Yt5Rb8Nc1Mx4Kw7Jv0Hu3Gs6Fq9Ep2Do5Cn8Bm1Al4`;
const OLD_HASH = `$6$rounds=5000$asidesaltsalt$${"Kp".repeat(43)}`;
const CLUSTER_SECRET = "Ce7Wq2Lz9Xv4Nb1Mk8Jh3Gf6Ds0Ap5Ou2Iy7Tr4Ee1";
const INSTALL_CODE = "KQZT-7MWP-X4RD-9BNC";

function attempt(n: number, outcome: "succeeded" | "failed"): AttemptRecord {
  return {
    attempt: n,
    kind: "install",
    startedBy: "person",
    state: outcome,
    step: "firstboot",
    startedAt: "2026-12-04T10:00:00.000Z",
    finishedAt: "2026-12-04T10:05:00.000Z",
    steps: [{ step: "firstboot", state: outcome, startedAt: "2026-12-04T10:00:00.000Z" }],
    verdict: { attempt: n, kind: "install", outcome, step: "firstboot", code: outcome === "failed" ? "FIRSTBOOT_FAILED" : null, message: "firstboot exited 3", next: "retryInstall" },
    config: { source: "structured", config: { cluster: { joinToken: "[redacted]" } } },
    payloadVersion: "2026.11",
    firstbootTail: [`join_token: ${SECRETS.joinToken}`],
    readinessHistory: [],
  };
}

/** A state dir as a node leaves it: a store with every secret, `attempts` attempts of `events` events each, its log, a store kept aside. */
async function stateDir(attempts: number, events: number): Promise<string> {
  const dir = await tempDir("stratum-support-state-");
  const layout = stateLayout(dir);
  const store: StoreData = {
    schemaVersion: 1,
    draft: { source: "structured", config: { mode: "single-node", cluster: { joinToken: SECRETS.joinToken }, admin: { passwordHash: SECRETS.passwordHash } }, revision: 3, updatedAt: null },
    attempts: Array.from({ length: attempts }, (_, i) => attempt(i + 1, "failed")),
    lockout: { addresses: {}, globalFailures: [] },
    cluster: { secret: CLUSTER_SECRET },
  };
  await writeFile(layout.store, JSON.stringify(store));
  await writeFile(layout.installCode, `${INSTALL_CODE}\n`);
  await writeFile(layout.tlsKey, tlsKey());
  await mkdir(layout.events);
  // Random text: it compresses about as little as firstboot's output can, so the cap cuts what the test expects.
  const padding = () => randomBytes(300).toString("base64");
  for (let a = 1; a <= attempts; a++) {
    const lines = Array.from({ length: events }, (_, i) =>
      JSON.stringify({ seq: i + 1, type: "firstboot.output", line: i % 100 === 0 ? `token ${SECRETS.joinToken} hash ${SECRETS.passwordHash} code ${INSTALL_CODE}` : padding() }),
    );
    await writeFile(layout.eventsOf(a), `${lines.join("\n")}\n`);
  }
  await writeFile(layout.serviceLog, `${JSON.stringify({ message: "seen", error: `bad token "${SECRETS.joinToken}"` })}\n`);
  const aside = JSON.stringify({ schemaVersion: 1, draft: { source: "yaml", yaml: `mode: join\ncluster:\n  join_token: '${OLD_TOKEN}'\nadmin:\n  password_hash: "${OLD_HASH}"\n` } });
  await writeFile(layout.storeAside(new Date("2026-12-01T00:00:00Z")), aside.slice(0, -3));
  return dir;
}

async function bundle(dir: string, limitBytes?: number): Promise<{ file: string; manifest: Manifest }> {
  const made = writeSupportBundle({
    state: await readState(dir),
    madeBy: "test",
    version: "0.0.0-test",
    now: new Date("2026-12-04T14:28:00Z"),
    hostname: "node-01",
    status: { phase: "failed" },
    host: {},
    payload: {},
    limitBytes,
  });
  const file = join(await tempDir("stratum-support-out-"), made.name);
  await pipeline(made.stream, createWriteStream(file));
  return { file, manifest: await made.manifest };
}

const SECRETS_HERE = { ...SECRETS, installCode: INSTALL_CODE, clusterSecret: CLUSTER_SECRET, oldToken: OLD_TOKEN, oldHash: OLD_HASH };

test("no secret of the store, the code, the key or a store kept aside in any file; markers name them", async () => {
  const dir = await stateDir(2, 300);
  const { file, manifest } = await bundle(dir);
  assert.match(file, /stratum-support-node-01-20261204T142800Z\.tar\.gz$/);
  const { files } = await extractBundle(file);
  assert.deepEqual(manifest.leftOut.map((l) => l.path).sort(), ["notices.json", "readiness.json"]);
  const aside = [...files.keys()].find((path) => path.startsWith("state/installer.json.corrupt-"));
  assert.ok(aside, "the store kept aside is in");
  assert.match(files.get(aside)!, /\[redacted: join token\]/);
  assert.match(files.get("node.yaml")!, /join_token: "\[redacted: join token\]"/);
  assert.match(files.get("attempts/1/events.ndjson")!, /token \[redacted: join token\] hash \[redacted: password hash\] code \[redacted: install code\]/);
  assert.match(files.get("log/service.log")!, /\[redacted: join token\]/);
  assertNoSecret(files, SECRETS_HERE);
  const key = (await import("node:fs/promises")).readFile(stateLayout(dir).tlsKey, "utf8");
  assertNoSecret(files, { tlsKey: await key });
});

test("over the cap, the oldest events of the oldest attempts are left out first, each cut named", async () => {
  const dir = await stateDir(3, 2500); // ≈ 1.1 MB of events an attempt, ≈ 0.85 MB compressed
  const limit = 1.5 * 1024 * 1024;
  const { file, manifest } = await bundle(dir, limit);
  const size = (await stat(file)).size;
  assert.ok(size <= limit, `${size} bytes, over the cap`);
  assert.ok(size > limit * 0.8, `${size} bytes: the cap is used, not only a part of it`);
  const cuts = manifest.leftOut.filter((l) => l.events);
  assert.deepEqual(cuts.map((c) => c.path), ["attempts/1/events.ndjson", "attempts/2/events.ndjson"]);
  assert.deepEqual(cuts[0]!.events, { leftOut: 2500, of: 2500 });
  assert.ok(cuts[1]!.events!.leftOut > 0 && cuts[1]!.events!.leftOut < 2500);
  const { files } = await extractBundle(file);
  assert.equal(files.has("attempts/1/events.ndjson"), false);
  const kept = files.get("attempts/2/events.ndjson")!.trimEnd().split("\n");
  assert.equal(kept.length, 2500 - cuts[1]!.events!.leftOut);
  assert.equal(JSON.parse(kept.at(-1)!).seq, 2500, "the newest events are kept");
  assert.equal(files.get("attempts/3/events.ndjson")!.trimEnd().split("\n").length, 2500);
});

test("reads only: the state dir's files and times are as they were, and no lock is taken", async () => {
  const dir = await stateDir(1, 10);
  const before = await listing(dir);
  await bundle(dir);
  assert.deepEqual(await listing(dir), before);
  assert.equal(before.some(([name]) => name === "installer.lock"), false);
});

async function listing(dir: string): Promise<Array<[string, number, number]>> {
  const names = (await readdir(dir, { recursive: true })).sort();
  return Promise.all(names.map(async (name) => {
    const s = await stat(join(dir, name));
    return [name, s.size, s.mtimeMs] as [string, number, number];
  }));
}

test("a reader that goes away ends the bundle: its manifest rejects, nothing waits for ever", async () => {
  const dir = await stateDir(3, 2500);
  const made = writeSupportBundle({ state: await readState(dir), madeBy: "test", version: "0.0.0-test", now: new Date(), hostname: "node-01", status: {}, host: {}, payload: {} });
  for await (const _chunk of made.stream) break; // for await's break destroys the stream
  await assert.rejects(made.manifest, /went away/);
});

test("a bundle is named for the node being installed (the status's hostname: the draft's), not the rescue image's host name every node shares", async () => {
  const dir = await stateDir(1, 10);
  const made = (status: unknown) => writeSupportBundle({ state: { stateDir: dir, asides: [], writtenNodeYamls: [], unreadSecretFiles: [] }, madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-06T15:00:00Z"), hostname: "rescue", status, host: {}, payload: {} });
  const drafted = writeSupportBundle({ state: await readState(dir), madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-06T15:00:00Z"), hostname: "rescue", status: { phase: "done", hostname: "node-07" }, host: {}, payload: {} });
  assert.equal(drafted.name, "stratum-support-node-07-20261206T150000Z.tar.gz");
  await pipeline(drafted.stream, createWriteStream("/dev/null"));
  assert.equal((await drafted.manifest).hostname, "node-07");
  for (const status of [{}, { hostname: "" }, undefined]) {
    const bundle = made(status);
    bundle.manifest.catch(() => undefined);
    bundle.stream.destroy();
    assert.equal(bundle.name, "stratum-support-rescue-20261206T150000Z.tar.gz", JSON.stringify(status));
  }
});

test("over the cap, the newest attempts' reports are kept and the oldest left out; an events file cut whole is left out, never put in empty", async () => {
  const dir = await stateDir(6, 20);
  const layout = stateLayout(dir);
  const store = JSON.parse(await readFile(layout.store, "utf8")) as StoreData;
  // Each report ≈ 480 KB that compresses little (a firstboot's tail of long random lines): six of them are over the cap.
  for (const record of store.attempts) record.firstbootTail = Array.from({ length: 40 }, () => randomBytes(9000).toString("base64"));
  await writeFile(layout.store, JSON.stringify(store));
  const limit = 1.5 * 1024 * 1024;
  const { file, manifest } = await bundle(dir, limit);
  assert.ok((await stat(file)).size <= limit);
  const { files } = await extractBundle(file);
  const reports = [1, 2, 3, 4, 5, 6].filter((n) => files.has(`attempts/${n}/report.json`));
  assert.ok(reports.length >= 2 && reports.length < 6, `reports in: ${reports}`);
  assert.deepEqual(reports, [6, 5, 4, 3, 2, 1].slice(0, reports.length).reverse(), "the newest are the ones kept");
  for (const n of [1, 2, 3, 4, 5, 6].filter((n) => !reports.includes(n))) {
    assert.ok(manifest.leftOut.some((l) => l.path === `attempts/${n}/report.json`), `report ${n}'s absence named`);
  }
  for (const [path, text] of files) assert.ok(!path.endsWith("events.ndjson") || text.length > 0, `${path} is in the bundle empty`);
  for (const l of manifest.leftOut.filter((l) => l.events)) {
    if (l.events!.leftOut === l.events!.of) assert.equal(files.has(l.path), false, `${l.path}: all its events left out, yet the file is in`);
  }
});

test("a store that does not parse: every attempt's event file in the events folder is still in the bundle", async () => {
  const dir = await stateDir(2, 30);
  const layout = stateLayout(dir);
  await writeFile(layout.store, (await readFile(layout.store, "utf8")).slice(0, 200));
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  for (const n of [1, 2]) assert.equal(files.get(`attempts/${n}/events.ndjson`)?.trimEnd().split("\n").length, 30, `attempt ${n}'s events`);
  assert.equal(manifest.leftOut.some((l) => l.path.endsWith("events.ndjson")), false);
  assertNoSecret(files, SECRETS_HERE);
});

test("an event file that is not a file (a folder in its place) is named in leftOut; the bundle is made", async () => {
  const dir = await stateDir(2, 10);
  const layout = stateLayout(dir);
  await rm(layout.eventsOf(1));
  await mkdir(layout.eventsOf(1));
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  assert.equal(files.has("attempts/1/events.ndjson"), false);
  assert.match(manifest.leftOut.find((l) => l.path === "attempts/1/events.ndjson")?.why ?? "", /not a file/);
  assert.ok(files.has("attempts/2/events.ndjson"));
});

test("the default cap is 10 MB (SPEC §11), not 10 MiB", async () => {
  const { manifest } = await bundle(await stateDir(1, 5));
  assert.equal(manifest.limitBytes, 10_000_000);
});

test("a hostname of 300 characters (a draft may hold one) is cut in the bundle's name: every path in it can be unpacked", async () => {
  const long = "a".repeat(300);
  const made = writeSupportBundle({ state: await readState(await stateDir(1, 5)), madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-06T15:00:00Z"), hostname: "rescue", status: { hostname: long }, host: {}, payload: {} });
  assert.ok(made.name.length <= 120, made.name);
  assert.match(made.name, /^stratum-support-a+-20261206T150000Z\.tar\.gz$/);
  const file = join(await tempDir("stratum-support-out-"), made.name);
  await pipeline(made.stream, createWriteStream(file));
  const { files } = await extractBundle(file);
  assert.ok(files.has("manifest.json"));
  assert.equal((await made.manifest).hostname, long, "the manifest names it whole");
});

test("a private key firstboot printed line by line (one event a line): its body lines are redacted too, every line still JSON", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const body = Array.from({ length: 4 }, () => randomBytes(48).toString("base64"));
  const printed = ["-----BEGIN OPENSSH PRIVATE KEY-----", ...body, "-----END OPENSSH PRIVATE KEY-----", "after the key"];
  // A body line's other fields hold a secret too: cut from the redacted line, they keep their redaction.
  const events = printed.map((message, i) => JSON.stringify({ seq: 4 + i, attempt: 1, time: "2026-12-04T10:00:00.000Z", type: "step.log", step: "firstboot", level: "info", message, data: { note: `token ${SECRETS.joinToken}` } }));
  await writeFile(layout.eventsOf(1), `${(await readFile(layout.eventsOf(1), "utf8"))}${events.join("\n")}\n`);
  const { files } = await extractBundle((await bundle(dir)).file);
  assertNoSecret(files, SECRETS_HERE);
  const lines = files.get("attempts/1/events.ndjson")!.trimEnd().split("\n");
  assert.equal(lines.length, 3 + printed.length);
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
  for (const part of body) assert.doesNotMatch(files.get("attempts/1/events.ndjson")!, new RegExp(part.slice(0, 20).replace(/[+/]/g, "\\$&")));
  assert.equal(JSON.parse(lines.at(-1)!).message, "after the key");
});

test("a line that only speaks of a key's BEGIN line takes nothing from the lines after it (paths, digests): only a key's own body lines are cut", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const printed = ["grep found '-----BEGIN RSA PRIVATE KEY-----' in 0 files", "pulled registry.example/stratum/ceph@sha256:0123456789abcdef0123456789abcdef", "wrote /var/lib/stratum/images/ceph-mon.tar"];
  const events = printed.map((message, i) => JSON.stringify({ seq: 4 + i, attempt: 1, time: "2026-12-04T10:00:00.000Z", type: "step.log", step: "firstboot", level: "info", message }));
  await writeFile(layout.eventsOf(1), `${(await readFile(layout.eventsOf(1), "utf8"))}${events.join("\n")}\n`);
  const { files } = await extractBundle((await bundle(dir)).file);
  const messages = files.get("attempts/1/events.ndjson")!.trimEnd().split("\n").map((line) => JSON.parse(line).message);
  assert.deepEqual(messages.slice(-2), printed.slice(1));
});

test("a store that does not parse: its secrets are redacted before its control characters are written out (a secret holding one is still found)", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const odd = "Pw\u202eHunter2xQ9vL0sT4nB8kD3mF6";
  await writeFile(layout.store, `{"schemaVersion":1,"draft":{"source":"structured","config":{"admin":{"passwordHash":"${odd}"`);
  const { files } = await extractBundle((await bundle(dir)).file);
  assert.match(files.get("state/installer.json")!, /"passwordHash":"\[redacted: password hash\]"/);
  assert.doesNotMatch(files.get("state/installer.json")!, /Hunter2x/);
});

test("a damaged store's and a damaged event line's control characters are written out in the bundle, never copied raw", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  await writeFile(layout.store, `{"schemaVersion":1,\u0000"draft":"\u001b]0;pwned\u0007\u202e`);
  await writeFile(layout.eventsOf(1), `${await readFile(layout.eventsOf(1), "utf8")}\u001b]0;pwned\u0007\u001b[2J torn\n`);
  const { files } = await extractBundle((await bundle(dir)).file);
  for (const [path, text] of files) assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/, path);
  assert.match(files.get("state/installer.json")!, /\\u001b\]0;pwned\\u0007/);
  assert.match(files.get("attempts/1/events.ndjson")!, /\\u001b\[2J torn\n$/);
});

test("an install code, TLS key or last start's notices that is no file (a named pipe, a link to /dev/zero) neither hangs the bundle nor reads without end; the notices are named in leftOut", { timeout: 60_000 }, async () => {
  for (const [make, what] of [
    [(path: string) => void execFileSync("mkfifo", [path]), "a named pipe"],
    // The notices are text the bundle holds: a link in their place is not followed (the code and the key are, to redact them).
    [(path: string) => symlinkSync("/dev/zero", path), "a link (not followed: the service makes none there)"],
  ] as const) {
    const dir = await stateDir(1, 3);
    const layout = stateLayout(dir);
    for (const path of [layout.installCode, layout.tlsKey, layout.lastStart]) {
      await rm(path, { force: true });
      make(path);
    }
    const { file, manifest } = await bundle(dir);
    const { files } = await extractBundle(file);
    assert.ok(files.has("attempts/1/events.ndjson"), what);
    assert.equal(manifest.leftOut.find((l) => l.path === "notices.json")?.why, `${layout.lastStart} is ${what}, not a file`);
  }
});

test("a YAML draft's and the last start's notices' control characters and bidi overrides are written out in the bundle, never copied raw", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const store = JSON.parse(await readFile(layout.store, "utf8")) as StoreData;
  store.draft = { source: "yaml", yaml: "mode: single-node\r\n# \u001b]0;pwned\u0007\u001b[2J\u202e gnirts\r\nhostname: node-01\rx\n", revision: 1, updatedAt: null };
  await writeFile(layout.store, JSON.stringify(store));
  const notice = "stopped 1 process an earlier firstboot left running: 4242 /opt/fb \u009b2J\u202e gnirts";
  await writeFile(layout.lastStart, `${JSON.stringify({ startedAt: "2026-12-04T14:00:00.000Z", pid: 1, version: "0.0.0", notices: [notice] }, null, 2)}\n`);
  const { files } = await extractBundle((await bundle(dir)).file);
  for (const [path, text] of files) assert.doesNotMatch(text.replaceAll("\r\n", "\n"), /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/, path);
  assert.equal(files.get("node.yaml")!, "mode: single-node\r\n# \\u001b]0;pwned\\u0007\\u001b[2J\\u202e gnirts\r\nhostname: node-01\\u000dx\n", "written out; a line's CRLF end kept");
  assert.deepEqual(JSON.parse(files.get("notices.json")!).notices, [notice], "notices.json parses to the same notices");
});

test("the manifest says the secrets were left out, replaced by markers, and names each kind it redacted (SPEC §11: what was left out and why)", async () => {
  const { manifest } = await bundle(await stateDir(1, 3));
  assert.match(manifest.redaction.statement, /\[redacted: /);
  for (const name of ["install code", "TLS private key", "join token", "join token secret", "password hash", "cluster secret"]) assert.ok(manifest.redaction.secrets.includes(name), name);
  assert.equal(new Set(manifest.redaction.secrets).size, manifest.redaction.secrets.length, "each named once");
});

test("the secrets of the node.yaml an attempt wrote are redacted though the draft has changed since: a firstboot's echo of them in hex or URL-encoded is not kept", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const written = `STRATUM1:${"b8".repeat(32)}:Wn4Tq7Rv2Ks9Lx5Mz8Pc3Hd6Jf1Gb0Ya-Ue_Io7OlQz`;
  const writtenSecret = written.split(":")[2]!;
  const writtenHash = `$6$rounds=5000$writtensaltsa$${"Vb".repeat(43)}`;
  const nodeYaml = join(dir, "..", `node-${randomBytes(4).toString("hex")}.yaml`);
  await writeFile(nodeYaml, `mode: join\ncluster:\n  join_token: "${written}"\nadmin:\n  password_hash: "${writtenHash}"\n`, { mode: 0o600 });
  const store = JSON.parse(await readFile(layout.store, "utf8")) as StoreData;
  store.attempts[0]!.nodeYamlPath = nodeYaml;
  await writeFile(layout.store, JSON.stringify(store));
  const echoes = [Buffer.from(writtenSecret).toString("hex"), encodeURIComponent(writtenHash), Buffer.from(writtenSecret, "base64url").toString("hex")];
  await writeFile(layout.eventsOf(1), `${echoes.map((echo, i) => JSON.stringify({ seq: i + 1, type: "step.log", message: `echo ${echo}` })).join("\n")}\n`);
  const { files } = await extractBundle((await bundle(dir)).file);
  const events = files.get("attempts/1/events.ndjson")!;
  for (const echo of echoes) assert.ok(!events.includes(echo), echo);
  assert.match(events, /echo \[redacted: join token secret\]/);
  assertNoSecret(files, { written, writtenSecret, writtenHash });
});

test("a node.yaml an attempt wrote, or the operator's TLS key, that cannot be read: the manifest and its reader are told that the secrets only it held are redacted by their shape alone, not that every secret was known", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  // A folder where each file is (what a failing disk or a wrong mount gives as well): neither can be read.
  const nodeYaml = join(dir, "..", `node-${randomBytes(4).toString("hex")}.yaml`);
  await mkdir(nodeYaml);
  const store = JSON.parse(await readFile(layout.store, "utf8")) as StoreData;
  store.attempts[0]!.nodeYamlPath = nodeYaml;
  await writeFile(layout.store, JSON.stringify(store));
  const operatorKey = join(dir, "..", `op-${randomBytes(4).toString("hex")}.key`);
  await mkdir(operatorKey);
  const { secrets, unreadSecrets } = await operatorSecrets(operatorKey);
  assert.deepEqual(secrets, []);
  const made = writeSupportBundle({ state: await readState(dir), madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-04T14:28:00Z"), hostname: "node-01", status: { phase: "failed" }, host: {}, payload: {}, secrets, unreadSecrets });
  const file = join(await tempDir("stratum-support-out-"), made.name);
  await pipeline(made.stream, createWriteStream(file));
  const manifest = await made.manifest;
  assert.deepEqual(manifest.redaction.unread, [
    `${nodeYaml} (the node.yaml attempt 1 wrote) is a folder, not a file`,
    `${operatorKey} (the operator's TLS private key, --tls-key) is a folder, not a file`,
  ]);
  assert.match(manifest.redaction.statement, /Files named in unread could not be read: a secret only they held is replaced only where its shape shows it/);
  const { files } = await extractBundle(file);
  assert.deepEqual(JSON.parse(files.get("manifest.json")!).redaction.unread, manifest.redaction.unread);
  // A bundle that knew every secret says nothing of the kind.
  assert.equal((await bundle(await stateDir(1, 3))).manifest.redaction.unread, undefined);
});

test("a secret pasted into the draft's hostname (the install code, a hash) is in neither the bundle's name nor any path in it", async () => {
  for (const secret of [INSTALL_CODE, INSTALL_CODE.toLowerCase(), SECRETS.passwordHash]) {
    const dir = await stateDir(1, 3);
    const made = writeSupportBundle({ state: await readState(dir), madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-06T15:00:00Z"), hostname: "rescue", status: { phase: "configuring", hostname: secret }, host: {}, payload: {} });
    assert.equal(made.name, "stratum-support-_redacted__install_code_-20261206T150000Z.tar.gz".replace("install_code", secret.startsWith("$") ? "password_hash" : "install_code"), secret);
    const file = join(await tempDir("stratum-support-out-"), made.name);
    await pipeline(made.stream, createWriteStream(file));
    const { folder } = await extractBundle(file);
    assert.equal(`${folder}.tar.gz`, made.name);
  }
});

test("a link that loops or a socket in place of a file the bundle reads (the store, the code, the key, the notices, the log) is named in leftOut; the bundle is still made", async () => {
  for (const [make, what] of [
    [(path: string) => symlinkSync(path, path), "a link that loops"],
    [(path: string) => void execFileSync(process.execPath, ["-e", `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`]), "a socket"],
  ] as const) {
    const dir = await stateDir(1, 3);
    const layout = stateLayout(dir);
    for (const path of [layout.store, layout.installCode, layout.tlsKey, layout.lastStart, layout.serviceLog, layout.eventsOf(2)]) {
      await rm(path, { force: true });
      make(path);
    }
    const { file, manifest } = await bundle(dir);
    const { files } = await extractBundle(file);
    assert.ok(files.has("attempts/1/events.ndjson"), what);
    // The files whose text the bundle holds take no link at all (a loop is one); the code and the key, only redacted, say what it is.
    const held = what === "a socket" ? what : "a link (not followed: the service makes none there)";
    assert.equal(manifest.leftOut.find((l) => l.path === "attempts/2/events.ndjson")?.why, what === "a socket" ? `${layout.eventsOf(2)} is not a file` : `${layout.eventsOf(2)} is ${held}, not a file`);
    assert.equal(manifest.leftOut.find((l) => l.path === "notices.json")?.why, `${layout.lastStart} is ${held}, not a file`);
    assert.equal(manifest.leftOut.find((l) => l.path === "log/service.log")?.why, `${layout.serviceLog} is ${held}, not a file`);
    assert.equal(manifest.leftOut.find((l) => l.path === "node.yaml")?.why, `the store file is ${held}, not a file`);
  }
});

test("a service log bigger than the service ever keeps (a 2 GB sparse file): its last megabyte is in the bundle, and the cut is named in leftOut", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  await writeFile(layout.serviceLog, `${JSON.stringify({ message: "the first line" })}\n`);
  execFileSync("truncate", ["-s", "2G", layout.serviceLog]);
  await writeFile(layout.serviceLog, `\n${JSON.stringify({ message: "the last line", error: `token ${SECRETS.joinToken}` })}\n`, { flag: "a" });
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  const log = files.get("log/service.log")!;
  assert.ok(log.includes("the last line"), "the log's newest line is there");
  assert.ok(!log.includes("the first line"), "its oldest is not");
  assert.ok(log.startsWith('{"message":"the last line"'), "from a line's start: the line the cut fell in (of NULs) is not there");
  assertNoSecret(files, SECRETS);
  assert.match(manifest.leftOut.find((l) => l.path === "log/service.log")?.why ?? "", /is 2147483\d+ bytes .*: only its last megabyte is here/);
});

test("an events file with a line of megabytes (a crash's NUL-filled tail, then more events): the line is left out and named, the events around it kept; it is read in one pass, never gathered whole", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const last = JSON.stringify({ seq: 5, type: "step.log", message: `after the crash ${SECRETS.joinToken}` });
  await writeFile(layout.eventsOf(1), Buffer.concat([await readFile(layout.eventsOf(1)), Buffer.alloc(8 * 1024 * 1024), Buffer.from(`\n${last}\n`)]));
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  const events = files.get("attempts/1/events.ndjson")!;
  assert.ok(events.length < 64 * 1024, `${events.length} bytes: the NULs are not there`);
  assert.deepEqual(events.trimEnd().split("\n").map((line) => (JSON.parse(line) as { seq: number }).seq), [1, 2, 3, 5]);
  assertNoSecret(files, SECRETS);
  assert.equal(manifest.leftOut.find((l) => l.path === "attempts/1/events.ndjson")?.why, "1 line over 1 MiB (8388609 bytes), which no event the installer writes is: damage, such as the NULs a crash leaves");
});

test("an events file removed, cut shorter, or replaced by a named pipe or a folder while the bundle is being written (a discarded attempt, an append undone on a full disk): the bundle is still whole (it failed on ESPIPE, EISDIR), the cut named", async () => {
  for (const change of ["removed", "cut", "a named pipe", "a folder"] as const) {
    const dir = await stateDir(3, 3000);
    const layout = stateLayout(dir);
    const made = writeSupportBundle({ state: await readState(dir), madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-04T14:28:00Z"), hostname: "node-01", status: {}, host: {}, payload: {} });
    const chunks: Buffer[] = [];
    // The first bytes come once every file is measured; the reader then holds back while the first attempt's events stream.
    chunks.push((await made.stream[Symbol.asyncIterator]().next()).value as Buffer);
    if (change === "cut") await truncate(layout.eventsOf(3), 1000);
    else await rm(layout.eventsOf(3));
    if (change === "a named pipe") execFileSync("mkfifo", [layout.eventsOf(3)]);
    if (change === "a folder") await mkdir(layout.eventsOf(3));
    for await (const chunk of made.stream) chunks.push(chunk as Buffer);
    const manifest = await made.manifest;
    const { files } = await extractBundle(Buffer.concat(chunks));
    assert.ok(files.has("manifest.json"), change);
    assert.match(manifest.leftOut.find((l) => l.path === "attempts/3/events.ndjson")?.why ?? "", /^it was cut shorter or removed as the bundle read it: its last \d+ bytes are blank lines$/, change);
  }
});

test("a link in the state dir in place of a file the bundle holds (the log, the notices, the store, an events file, a store kept aside) is not followed: a file outside it (/etc/shadow) never reaches the bundle", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const outside = join(await tempDir("stratum-support-outside-"), "shadow");
  await mkdir(join(outside, ".."), { recursive: true });
  await writeFile(outside, "root:OUTSIDE-THE-STATE-DIR:20228:0:99999:7:::\n");
  const aside = layout.storeAside(new Date("2026-12-02T00:00:00Z"));
  for (const path of [layout.serviceLog, layout.lastStart, layout.store, layout.eventsOf(1), aside]) {
    await rm(path, { force: true });
    symlinkSync(outside, path);
  }
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  for (const [path, text] of files) assert.ok(!text.includes("OUTSIDE-THE-STATE-DIR"), path);
  for (const [path, of] of [["log/service.log", layout.serviceLog], ["notices.json", layout.lastStart], ["attempts/1/events.ndjson", layout.eventsOf(1)]]) {
    assert.equal(manifest.leftOut.find((l) => l.path === path)?.why, `${of} is a link (not followed: the service makes none there), not a file`, path);
  }
  assert.equal(manifest.leftOut.find((l) => l.path === "node.yaml")?.why, "the store file is a link (not followed: the service makes none there), not a file");
});

test("a link in place of the state dir's events folder is not followed: no attempt's events from the folder it leads to (nor one the store does not name) reach the bundle; each attempt's are said left out, naming the link", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const outside = await tempDir("stratum-support-outside-");
  const line = `${JSON.stringify({ seq: 1, type: "firstboot.output", line: "OUTSIDE-THE-STATE-DIR" })}\n`;
  await writeFile(join(outside, "attempt-1.jsonl"), line);
  await writeFile(join(outside, "attempt-7.jsonl"), line);
  await rm(layout.events, { recursive: true });
  symlinkSync(outside, layout.events);
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  for (const [path, text] of files) assert.ok(!text.includes("OUTSIDE-THE-STATE-DIR"), path);
  assert.deepEqual([...files.keys()].filter((path) => path.endsWith("events.ndjson")), []);
  assert.deepEqual(
    manifest.leftOut.filter((l) => l.path.endsWith("events.ndjson")),
    [{ path: "attempts/1/events.ndjson", why: `${layout.events} is a link (not followed: the service makes none there), not a folder` }],
  );
});

test("a node with more attempts than a process may have open files (300 under a limit of 128): the bundle is made, each events file open only while it is read", { skip: !existsSync("/usr/bin/prlimit") && "no prlimit" }, async () => {
  const dir = await stateDir(300, 2);
  const out = join(await tempDir("stratum-support-out-"), "b.tar.gz");
  const script = `
    import { createWriteStream } from "node:fs";
    import { pipeline } from "node:stream/promises";
    import { readState, writeSupportBundle } from ${JSON.stringify(join(import.meta.dirname, "../../../core/support/index.ts"))};
    const made = writeSupportBundle({ state: await readState(process.argv[1]), madeBy: "test", version: "0", now: new Date(), hostname: "n", status: {}, host: {}, payload: {} });
    await pipeline(made.stream, createWriteStream(process.argv[2]));
    await made.manifest;`;
  execFileSync("prlimit", ["--nofile=128:128", process.execPath, "--import", "tsx", "--input-type=module", "-e", script, dir, out], { stdio: ["ignore", "ignore", "pipe"] });
  const { files } = await extractBundle(out);
  assert.ok(files.has("attempts/300/events.ndjson"));
});

test("a store kept aside whose file name holds the install code, a newline or a terminal escape: no path in the bundle holds the code or a raw control character", async () => {
  const dir = await stateDir(1, 3);
  await writeFile(join(dir, `installer.json.corrupt-${INSTALL_CODE}-\u001b]0;owned\u0007\nX`), "{");
  const { file, manifest } = await bundle(dir);
  const names = execFileSync("tar", ["--quoting-style=literal", "-tzf", file], { encoding: "utf8" }).split("\n").filter(Boolean);
  const aside = names.find((name) => name.includes("corrupt-[redacted"));
  assert.ok(aside, names.join("\n"));
  for (const name of names) {
    assert.ok(!name.includes(INSTALL_CODE) && !name.includes(INSTALL_CODE.replaceAll("-", "")), name);
    assert.doesNotMatch(name, /[\u0000-\u001f\u007f]/, JSON.stringify(name));
  }
  assert.ok(manifest.files.some((f) => aside.endsWith(f.path)), "the manifest lists the file by the name it has in the tar");
});

test("a store kept aside that is no file (a link to /etc/shadow, a named pipe, a folder) is named in leftOut, not dropped unsaid; the bundle is made", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  const [link, fifo, folder] = [1, 2, 3].map((day) => layout.storeAside(new Date(`2026-12-0${day}T00:00:00Z`)));
  await rm(layout.storeAside(new Date("2026-12-01T00:00:00Z")), { force: true });
  symlinkSync("/etc/shadow", link!);
  execFileSync("mkfifo", [fifo!]);
  await mkdir(folder!);
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  assert.ok(files.has("manifest.json"));
  const why = (path: string) => manifest.leftOut.find((l) => l.path === `state/${path.slice(dir.length + 1)}`)?.why;
  assert.equal(why(link!), `${link} is a link (not followed: the service makes none there), not a file`);
  assert.equal(why(fifo!), `${fifo} is a named pipe, not a file`);
  assert.equal(why(folder!), `${folder} is a folder, not a file`);
});

test("a file the bundle holds that this user may not read (the log, the notices, a store kept aside, an events file, 0600 root's): left out, named with why; the bundle is made (it failed whole, or said 'no event file')", { skip: process.getuid?.() !== 0 && "needs root to read the state dir as another user" }, async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  await writeFile(layout.lastStart, "{}\n");
  const aside = layout.storeAside(new Date("2026-12-01T00:00:00Z"));
  const closed = [layout.serviceLog, layout.lastStart, aside, layout.eventsOf(1)];
  await chmod(dir, 0o755);
  await chmod(layout.events, 0o755);
  for (const path of [layout.store, layout.installCode, layout.tlsKey]) await chmod(path, 0o644);
  for (const path of closed) await chmod(path, 0o600);
  const script = `
    import { readState, writeSupportBundle } from ${JSON.stringify(join(import.meta.dirname, "../../../core/support/index.ts"))};
    const made = writeSupportBundle({ state: await readState(process.argv[1]), madeBy: "test", version: "0", now: new Date(), hostname: "n", status: {}, host: {}, payload: {} });
    made.stream.resume();
    process.stdout.write(JSON.stringify(await made.manifest));`;
  const nobody = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }));
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, dir], { uid: nobody, gid: nobody, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const manifest = JSON.parse(out) as Manifest;
  const why = (path: string) => manifest.leftOut.find((l) => l.path === path)?.why;
  assert.equal(why("log/service.log"), `${layout.serviceLog} cannot be read (EACCES: permission denied)`);
  assert.equal(why("notices.json"), `${layout.lastStart} cannot be read (EACCES: permission denied)`);
  assert.equal(why(`state/${aside.slice(dir.length + 1)}`), `${aside} cannot be read (EACCES: permission denied)`);
  assert.equal(why("attempts/1/events.ndjson"), `${layout.eventsOf(1)} cannot be read (EACCES: permission denied)`);
  assert.ok(manifest.files.some((f) => f.path === "attempts/1/report.json"));
});

test("more stores kept aside than the bundle holds: the newest three are in, and the manifest says how many more were left out (they went unsaid)", async () => {
  const dir = await stateDir(1, 3);
  const layout = stateLayout(dir);
  for (const day of [2, 3, 4, 5]) await writeFile(layout.storeAside(new Date(`2026-12-0${day}T00:00:00Z`)), "{");
  const { file, manifest } = await bundle(dir);
  const { files } = await extractBundle(file);
  assert.deepEqual([...files.keys()].filter((path) => path.startsWith("state/")).sort(), [3, 4, 5].map((day) => `state/${layout.storeAside(new Date(`2026-12-0${day}T00:00:00Z`)).slice(dir.length + 1)}`));
  assert.deepEqual(manifest.leftOut.filter((l) => l.path.startsWith("state/")), [{ path: "state/installer.json.corrupt-*", why: "2 older stores kept aside: only the newest 3 are here" }]);
});

test("an events file measured whole that fails to read as the bundle streams it (a disk's EIO): its error names the file, which a read's error does not", { skip: refusal ? undefined : `${REFUSES_READ} reads or is not there` }, async () => {
  const file = { attempt: 1, path: REFUSES_READ, end: 4096, lines: 1, bytes: 4096, packed: 64, overlong: { lines: 0, bytes: 0 } };
  const streamed = async () => {
    for await (const _chunk of redactedEvents(file, { lines: 0, bytes: 0 }, createBundleRedactor([]), () => undefined));
  };
  await assert.rejects(streamed, { syscall: "read", path: REFUSES_READ, message: refusal });
});
