import assert from "node:assert/strict";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createAuthenticator } from "../../../core/access/auth.ts";
import { InstallerError } from "../../../core/common/errors.ts";
import { waitFor } from "../../helpers/installer.ts";
import { createLogger } from "../../../core/common/log.ts";
import { createRedactor } from "../../../core/secrets/index.ts";
import { stateLayout } from "../../../core/state/layout.ts";
import { openStore } from "../../../core/state/store.ts";
import { noSpace } from "../../helpers/full-disk.ts";

const CODE = "ABCD-EFGH-JKMN";

/** An authenticator over a real store in a temp state dir; its clock counts how often it is read. */
async function setUp(dir?: string) {
  dir ??= await mkdtemp(join(tmpdir(), "auth-"));
  const clock = { reads: 0, at: Date.parse("2026-12-05T12:00:00Z") };
  const now = () => {
    clock.reads += 1;
    return new Date(clock.at);
  };
  const { store } = await openStore(dir, now);
  const lines: string[] = [];
  const log = createLogger(createRedactor(() => [CODE]), now, { write: (line) => lines.push(line) });
  const lockout = store.slice("lockout");
  const auth = createAuthenticator({ lockout, installCode: CODE, now, log });
  const file = stateLayout(dir).store;
  const onDisk = async () => ({ text: await readFile(file, "utf8"), mtimeMs: (await stat(file)).mtimeMs, ino: (await stat(file)).ino });
  return { auth, clock, lines, lockout, onDisk, dir };
}

const origin = (client: string) => ({ requestId: "r-1", client });
const refusedWith = (code: string) => (error: unknown) => error instanceof InstallerError && error.code === code;

test("the right code from an address with no wrong code on record: let through at once, nothing read, counted or written", async () => {
  const { auth, clock, lines, lockout, onDisk } = await setUp();
  const before = await onDisk();
  const reads = clock.reads;
  for (const header of ["Bearer ABCD-EFGH-JKMN", "bearer abcd efgh jkmn", "ABCDEFGHJKMN"]) {
    assert.equal(auth.authorize(origin("127.0.0.1"), header), undefined, header);
  }
  assert.equal(clock.reads, reads, "no clock read");
  assert.deepEqual(lockout.get(), { addresses: {}, globalFailures: [] });
  assert.deepEqual(await onDisk(), before);
  assert.deepEqual(lines, []);
});

test("no code, or `Bearer` alone: 401 at once, nothing counted", async () => {
  const { auth, lockout } = await setUp();
  for (const header of [undefined, "", "Bearer", "Bearer   "]) {
    assert.throws(() => auth.authorize(origin("127.0.0.1"), header), refusedWith("UNAUTHORIZED"), String(header));
  }
  assert.deepEqual(lockout.get().addresses, {});
});

test("a wrong code is counted and saved before its 401; the right code then clears the address's count, saved too", async () => {
  const { auth, lines, lockout, onDisk } = await setUp();
  await assert.rejects(async () => auth.authorize(origin("127.0.0.1"), "Bearer ABCD-EFGH-JKMP"), refusedWith("UNAUTHORIZED"));
  assert.equal(lockout.get().addresses["127.0.0.1"]?.failures, 1);
  assert.equal(JSON.parse((await onDisk()).text).lockout.addresses["127.0.0.1"].failures, 1);
  assert.match(lines.join(""), /wrong install code/);
  // Another address's right code leaves that count alone.
  assert.equal(auth.authorize(origin("127.0.0.2"), `Bearer ${CODE}`), undefined);
  assert.equal(lockout.get().addresses["127.0.0.1"]?.failures, 1);

  const cleared = auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`);
  assert.ok(cleared instanceof Promise, "the clearing is saved before the request goes on");
  await cleared;
  assert.deepEqual(lockout.get().addresses, {});
  assert.deepEqual(JSON.parse((await onDisk()).text).lockout.addresses, {});
});

test("an address locked out is refused with 429 whatever it sends, the right code included; an IPv4 client seen as ::ffff: is the same address", async () => {
  const { auth, clock } = await setUp();
  for (let i = 0; i < 5; i += 1) await assert.rejects(async () => auth.authorize(origin("127.0.0.1"), `Bearer WRNG-WRNG-WRN${i}`));
  assert.throws(() => auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`), refusedWith("TOO_MANY_ATTEMPTS"));
  assert.throws(() => auth.authorize(origin("::ffff:127.0.0.1"), `Bearer ${CODE}`), refusedWith("TOO_MANY_ATTEMPTS"));
  // Past the lock, the right code is let through and clears the record.
  clock.at += 31_000;
  await auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`);
  assert.equal(auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`), undefined);
});

test("the global budget: once 100 wrong codes came within the hour, an address with a wrong code on record is refused even with the right code; a clean address still gets in, without a clock read", async () => {
  const { auth, clock, lockout } = await setUp();
  await assert.rejects(async () => auth.authorize(origin("127.0.0.9"), "Bearer ABCD-EFGH-JKMP"), refusedWith("UNAUTHORIZED"));
  // 99 more from 99 other addresses (each under its own 5 free failures).
  for (let i = 1; i < 100; i += 1) await assert.rejects(async () => auth.authorize(origin(`10.0.${i >> 8}.${i & 255}`), "Bearer ABCD-EFGH-JKMP"));
  assert.equal(lockout.get().globalFailures.length, 100);
  assert.throws(() => auth.authorize(origin("127.0.0.9"), `Bearer ${CODE}`), (error: unknown) => {
    assert.ok(refusedWith("TOO_MANY_ATTEMPTS")(error));
    // Said as it is: all addresses' wrong codes, not this one's (it sent one), and what still works.
    assert.equal(
      (error as InstallerError).detail,
      "100 or more wrong install codes came from all addresses together within the last hour (someone may be guessing): until that count falls, an address that sent a wrong code is refused, even with the right code; try again in 3600 s, or from an address that has sent no wrong code (it is answered as usual). The code is in the installer's banner and in `node installer.js code` on the node.",
    );
    return true;
  });
  const reads = clock.reads;
  assert.equal(auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`), undefined);
  assert.equal(clock.reads, reads);
});

test("the global budget survives a restart (SPEC §3: the counters survive a restart): a service started again on the state dir still refuses an address with a wrong code on record", async () => {
  const first = await setUp();
  await assert.rejects(async () => first.auth.authorize(origin("127.0.0.9"), "Bearer ABCD-EFGH-JKMP"), refusedWith("UNAUTHORIZED"));
  for (let i = 1; i < 100; i += 1) await assert.rejects(async () => first.auth.authorize(origin(`10.0.${i >> 8}.${i & 255}`), "Bearer ABCD-EFGH-JKMP"));
  const again = await setUp(first.dir);
  assert.equal(again.lockout.get().globalFailures.length, 100);
  assert.throws(() => again.auth.authorize(origin("127.0.0.9"), `Bearer ${CODE}`), refusedWith("TOO_MANY_ATTEMPTS"));
  assert.equal(again.auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`), undefined, "a clean address still gets in");
});

test("a wrong code on record for more than a day (and no lock) is forgotten: the right code gets in and the record goes", async () => {
  const { auth, clock, lockout } = await setUp();
  await assert.rejects(async () => auth.authorize(origin("127.0.0.1"), "Bearer ABCD-EFGH-JKMP"), refusedWith("UNAUTHORIZED"));
  clock.at += 24 * 60 * 60 * 1000 + 1;
  assert.equal(auth.authorize(origin("127.0.0.1"), `Bearer ${CODE}`), undefined, "nothing left to clear: let through at once");
  assert.deepEqual(lockout.get().addresses, {});
});

test("a wrong code counted while the state dir refuses writes reaches the disk once it takes them again, with no other write to carry it (the count survives a restart)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "auth-"));
  const now = () => new Date(Date.parse("2026-12-05T12:00:00Z"));
  const { store } = await openStore(dir, now);
  const lockout = store.slice("lockout");
  let refusing = true;
  const full = { ...lockout, save: () => (refusing ? Promise.reject(noSpace(dir)) : lockout.save()) };
  const log = createLogger(createRedactor(() => [CODE]), now, { write: () => undefined });
  const auth = createAuthenticator({ lockout: full, installCode: CODE, now, log });
  await assert.rejects(async () => auth.authorize(origin("127.0.0.7"), "Bearer ABCD-EFGH-JKMP"), refusedWith("UNAUTHORIZED"));
  refusing = false;
  await waitFor("the count on disk", async () => ((await readFile(stateLayout(dir).store, "utf8")).includes("127.0.0.7") ? true : undefined));
});

test("stop ends those retries: a stopped service writes no more counts (a service started again on the state dir owns the store)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "auth-"));
  const now = () => new Date(Date.parse("2026-12-05T12:00:00Z"));
  const { store } = await openStore(dir, now);
  const lockout = store.slice("lockout");
  let saves = 0;
  const full = { ...lockout, save: () => ((saves += 1), Promise.reject(noSpace(dir))) };
  // The retries' waits, each ended by the test: true (waited) or false (the service stopped).
  const waits: { signal: AbortSignal; end: (waited: boolean) => void }[] = [];
  const wait = (_ms: number, signal: AbortSignal) => new Promise<boolean>((end) => waits.push({ signal, end }));
  const auth = createAuthenticator({ lockout: full, installCode: CODE, now, wait, log: createLogger(createRedactor(() => [CODE]), now, { write: () => undefined }) });
  await assert.rejects(async () => auth.authorize(origin("127.0.0.8"), "Bearer ABCD-EFGH-JKMP"), refusedWith("UNAUTHORIZED"));
  await waitFor("the first retry's wait", async () => waits[0]);
  waits[0]!.end(true);
  await waitFor("the second retry's wait, after a refused retry", async () => waits[1]);
  assert.equal(saves, 2, "the count, then its first retry");
  auth.stop();
  assert.equal(waits[1]!.signal.aborted, true, "the wait is told the service stopped");
  waits[1]!.end(false);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(saves, 2, "no save after the stop");
  assert.equal(waits.length, 2, "and no wait: the retries ended");
});
