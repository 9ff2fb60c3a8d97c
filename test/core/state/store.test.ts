import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { DraftRecord } from "../../../core/state/records.ts";
import { stateLayout } from "../../../core/state/layout.ts";
import { openStore, removeInterruptedWrites } from "../../../core/state/store.ts";
import { refuseWrites } from "../../helpers/services.ts";

const now = () => new Date("2026-12-02T12:00:00Z");
const stateDir = () => mkdtemp(join(tmpdir(), "store-"));
const onDisk = async (dir: string) => JSON.parse(await readFile(stateLayout(dir).store, "utf8"));
const draft = (hostname: string): DraftRecord => ({ source: "structured", config: { hostname }, revision: 1, updatedAt: now().toISOString() });

test("a first start writes the empty document; each slice reads its part of it", async () => {
  const dir = await stateDir();
  const { store, firstStart } = await openStore(dir, now);
  assert.equal(firstStart, true);
  assert.deepEqual(store.slice("draft").get(), { source: "structured", config: {}, revision: 0, updatedAt: null });
  assert.deepEqual(store.slice("attempts").get(), []);
  assert.deepEqual(store.slice("lockout").get(), { addresses: {}, globalFailures: [] });
  assert.equal(store.slice("unattended").get(), undefined);
  assert.deepEqual(await onDisk(dir), { schemaVersion: 1, draft: { source: "structured", config: {}, revision: 0, updatedAt: null }, attempts: [], lockout: { addresses: {}, globalFailures: [] } });
});

test("set changes memory only; save writes it, and the next start reads it back", async () => {
  const dir = await stateDir();
  const { store } = await openStore(dir, now);
  const slice = store.slice("draft");
  slice.set(draft("node-01"));
  assert.deepEqual(slice.get(), draft("node-01"));
  assert.deepEqual((await onDisk(dir)).draft.config, {}, "not written before save()");
  await slice.save();
  assert.deepEqual((await onDisk(dir)).draft, draft("node-01"));
  const reopened = await openStore(dir, now);
  assert.equal(reopened.firstStart, false);
  assert.deepEqual(reopened.store.slice("draft").get(), draft("node-01"));
});

test("one document: a save writes what every slice holds in memory, changed in place or set", async () => {
  const dir = await stateDir();
  const { store } = await openStore(dir, now);
  store.slice("lockout").get().globalFailures.push(42);
  store.slice("handoff").set({ sha256: null });
  await store.slice("draft").save();
  const saved = await onDisk(dir);
  assert.deepEqual(saved.lockout.globalFailures, [42]);
  assert.deepEqual(saved.handoff, { sha256: null });
});

test("the attempts are written as their own last save left them: another slice's save never writes a verdict ahead of the attempt's events (the runner saves the record once they are on disk)", async () => {
  const dir = await stateDir();
  const { store } = await openStore(dir, now);
  const attempts = store.slice("attempts");
  const record = { attempt: 1, kind: "install", state: "running", steps: [] } as unknown as ReturnType<typeof attempts.get>[number];
  attempts.get().push(record);
  await attempts.save();
  Object.assign(record, { state: "failed", verdict: { code: "FIRSTBOOT_FAILED" } });
  store.slice("lockout").get().globalFailures.push(42);
  await store.slice("draft").save();
  assert.deepEqual((await onDisk(dir)).attempts, [{ attempt: 1, kind: "install", state: "running", steps: [] }]);
  assert.deepEqual((await onDisk(dir)).lockout.globalFailures, [42], "the other slices are written as memory holds them");
  await attempts.save();
  assert.deepEqual((await onDisk(dir)).attempts[0].verdict, { code: "FIRSTBOOT_FAILED" });

  // A save of the attempts the state dir refused, whose record the caller then took back: not written later either.
  const allowWrites = await refuseWrites(dir);
  attempts.get().push({ ...record, attempt: 2 });
  await assert.rejects(attempts.save());
  attempts.get().pop();
  await allowWrites();
  await store.slice("draft").save();
  assert.deepEqual(((await onDisk(dir)).attempts as { attempt: number }[]).map((a) => a.attempt), [1]);
});

test("two saves of the attempts the state dir refuses (an attempt's start and an earlier attempt's retried verdict): the record the start took back is not written by another slice's save later", async () => {
  const dir = await stateDir();
  const { store } = await openStore(dir, now);
  const attempts = store.slice("attempts");
  const first = { attempt: 1, kind: "install", state: "running", steps: [] } as unknown as ReturnType<typeof attempts.get>[number];
  attempts.get().push(first);
  await attempts.save();
  const allowWrites = await refuseWrites(dir);
  Object.assign(first, { state: "failed" });
  attempts.get().push({ ...first, attempt: 2, state: "running" });
  const started = attempts.save();
  const settled = attempts.save();
  await assert.rejects(started);
  attempts.get().pop();
  await assert.rejects(settled);
  await allowWrites();
  await store.slice("lockout").save();
  assert.deepEqual(((await onDisk(dir)).attempts as { attempt: number }[]).map((a) => a.attempt), [1]);
});

test("writes are serialised, each with the memory it was asked with: the last one asked is what stays", async () => {
  const dir = await stateDir();
  const { store } = await openStore(dir, now);
  const slice = store.slice("draft");
  const saves: Promise<void>[] = [];
  for (const hostname of ["node-01", "node-02", "node-03"]) {
    slice.set(draft(hostname));
    saves.push(slice.save());
  }
  await Promise.all(saves);
  assert.equal((await onDisk(dir)).draft.config.hostname, "node-03");
});

test("a save the state dir refuses rejects INSUFFICIENT_STORAGE and leaves the disk as it was; memory is the caller's to restore", async () => {
  const dir = await stateDir();
  const { store } = await openStore(dir, now);
  const slice = store.slice("draft");
  // A folder where the write's temp file goes: the write fails as on a full or read-only disk.
  const allowWrites = await refuseWrites(dir);
  slice.set(draft("node-02"));
  await assert.rejects(slice.save(), (err: { code?: string; detail?: string }) => err.code === "INSUFFICIENT_STORAGE" && err.detail!.includes(dir));
  assert.deepEqual((await onDisk(dir)).draft.config, {});
  assert.deepEqual(slice.get(), draft("node-02"), "the store does not roll memory back");
  await allowWrites();
  await slice.save();
  assert.equal((await onDisk(dir)).draft.config.hostname, "node-02", "the next save succeeds once the state dir takes writes");
});

test("a store file that parses but is not of the store's shape is kept aside as one that does not parse: the start goes on with a fresh store, saying why", async () => {
  const running = { attempt: 1, kind: "install", startedBy: "person", state: "running", step: "firstboot", startedAt: now().toISOString(), steps: [], config: { source: "structured", config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [] };
  for (const [what, doc] of [
    ["attempts that are no list", { schemaVersion: 1, attempts: "oops", draft: 42 }],
    ["an attempt that is null", { schemaVersion: 1, attempts: [null] }],
    ["an attempt with no state, steps or tail", { schemaVersion: 1, attempts: [{ attempt: 1 }] }],
    ["a draft of no known source", { schemaVersion: 1, attempts: [running], draft: { source: "xml", revision: 1, updatedAt: null } }],
    ["lockout addresses that are a list", { schemaVersion: 1, attempts: [], lockout: { addresses: [], globalFailures: [] } }],
  ] as const) {
    const dir = await stateDir();
    await writeFile(stateLayout(dir).store, JSON.stringify(doc));
    const opened = await openStore(dir, now);
    assert.equal(opened.keptAside, stateLayout(dir).storeAside(now()), what);
    assert.match(opened.keptAsideWhy ?? "", /^it is not an installer store document: /, what);
    assert.deepEqual(opened.store.slice("attempts").get(), [], what);
    assert.equal(await readFile(opened.keptAside!, "utf8"), JSON.stringify(doc), `${what}: kept as it was`);
  }
  // A store a newer installer wrote, with a kind, state and step this one does not know, is still read: the node still knows what ran.
  const newer = { ...running, kind: "reinstall", state: "paused", step: "drain", steps: [{ step: "drain", state: "paused", startedAt: now().toISOString() }] };
  const later = await stateDir();
  await writeFile(stateLayout(later).store, JSON.stringify({ schemaVersion: 1, attempts: [newer] }));
  assert.deepEqual((await openStore(later, now)).store.slice("attempts").get(), [newer]);
  // A whole store of the shape it has is read as it is.
  const dir = await stateDir();
  await writeFile(stateLayout(dir).store, JSON.stringify({ schemaVersion: 1, attempts: [running], draft: draft("node-01"), lockout: { addresses: {}, globalFailures: [] } }));
  const opened = await openStore(dir, now);
  assert.equal(opened.keptAside, undefined);
  assert.deepEqual(opened.store.slice("attempts").get(), [running]);
});

test("a store file that is not JSON is kept aside with where it stops being JSON, not a quote of the text around it (a damaged hash or token is there)", async () => {
  const dir = await stateDir();
  const secret = "$6$rounds=5000$SALTsaltSALT$HASHhashHASHhash";
  await writeFile(stateLayout(dir).store, `{"schemaVersion":1,\n "draft": {"password": ${secret}}}`);
  const opened = await openStore(dir, now);
  assert.equal(opened.keptAsideWhy, "Unexpected token '$' at line 2, column 24");
});

test("a store path that is no file (a folder, a device, a named pipe, through a link or not) is kept aside as one that does not parse: the start neither hangs nor reads without end", async () => {
  for (const [what, make, why] of [
    ["a link to a folder", (path: string) => symlink(tmpdir(), path), /^it is a folder, not a file$/],
    ["a link to /dev/zero", (path: string) => symlink("/dev/zero", path), /^it is a device or socket, not a file$/],
    ["a named pipe", async (path: string) => void spawnSync("mkfifo", [path]), /^it is a named pipe, not a file$/],
  ] as const) {
    const dir = await stateDir();
    await make(stateLayout(dir).store);
    const opened = await openStore(dir, now);
    assert.equal(opened.keptAside, stateLayout(dir).storeAside(now()), what);
    assert.match(opened.keptAsideWhy ?? "", why, what);
    assert.deepEqual(opened.store.slice("attempts").get(), [], what);
  }
});

test("a store with a few bytes that are not UTF-8 (damaged in place) is read as it is, those bytes as U+FFFD: not kept aside, its draft and records kept", async () => {
  const dir = await stateDir();
  const text = JSON.stringify({ schemaVersion: 1, attempts: [], draft: draft("node-01") });
  const bytes = Buffer.from(text.replace('"node-01"', '"node-0\u0000"'));
  bytes[bytes.indexOf(0)] = 0xff;
  await writeFile(stateLayout(dir).store, bytes);
  const opened = await openStore(dir, now);
  assert.equal(opened.keptAside, undefined);
  assert.equal(((opened.store.slice("draft").get() as unknown as { config: { hostname: string } }).config).hostname, "node-0\uFFFD");
});

test("the start's cleaning removes the temp files of interrupted writes (.NAME.PID.tmp, files) and nothing else: a folder with such a name stops no start, an operator's .notes.tmp stays", async () => {
  const dir = await stateDir();
  await writeFile(join(dir, `.installer.json.4242.tmp`), "{}");
  await writeFile(join(dir, `.install-code.17.tmp`), "");
  await mkdir(join(dir, `.x.4243.tmp`));
  await writeFile(join(dir, `.notes.tmp`), "mine");
  await writeFile(join(dir, `.installer.json.tmp`), "mine too");
  assert.deepEqual((await removeInterruptedWrites(dir)).sort(), [".install-code.17.tmp", ".installer.json.4242.tmp"]);
  assert.deepEqual((await readdir(dir)).sort(), [".installer.json.tmp", ".notes.tmp", ".x.4243.tmp"]);
});

test("a store kept aside is never deleted (SPEC §2): a second unreadable store at the same clock reading (a node whose clock starts at the same time each boot, before its time sync) is kept beside the first, not renamed over it", async () => {
  const dir = await stateDir();
  const { store: storePath } = stateLayout(dir);
  await writeFile(storePath, "{first");
  const first = await openStore(dir, now);
  await writeFile(storePath, "{second");
  const second = await openStore(dir, now);
  assert.ok(first.keptAside && second.keptAside);
  assert.notEqual(second.keptAside, first.keptAside);
  assert.deepEqual([await readFile(first.keptAside, "utf8"), await readFile(second.keptAside, "utf8")], ["{first", "{second"]);
  const aside = (await readdir(dir)).filter((name) => stateLayout(dir).isStoreAside(name));
  assert.equal(aside.length, 2, aside.join(", "));
});

test("the start's cleaning removes the code cache's temp file an older installer left (code-cache.tmp, ≈ 1 MB: installers of 2026-12-03/04 wrote it so and never removed it, killed or stopped mid-write), and only that name", async () => {
  const dir = await stateDir();
  await writeFile(join(dir, "code-cache.tmp"), Buffer.alloc(1024));
  await writeFile(join(dir, "code-cache"), "kept");
  await mkdir(join(dir, "events"));
  await writeFile(join(dir, "events", "code-cache.tmp"), "not the state dir's");
  await writeFile(join(dir, "install-code.tmp"), "an operator's");
  assert.deepEqual(await removeInterruptedWrites(dir), ["code-cache.tmp"]);
  assert.deepEqual((await readdir(dir)).sort(), ["code-cache", "events", "install-code.tmp"]);
});
