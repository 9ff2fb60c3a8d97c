import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { test } from "node:test";
import { stateLayout } from "../../../core/state/layout.ts";
import type { AttemptRecord, StoreData } from "../../../core/state/records.ts";
import { readState, writeSupportBundle, type Manifest } from "../../../core/support/index.ts";
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
  const made = (status: unknown) => writeSupportBundle({ state: {} as never, madeBy: "test", version: "0.0.0-test", now: new Date("2026-12-06T15:00:00Z"), hostname: "rescue", status, host: {}, payload: {} });
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
