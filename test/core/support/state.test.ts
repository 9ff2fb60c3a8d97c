import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { stateLayout } from "../../../core/state/layout.ts";
import { readState } from "../../../core/support/state.ts";

test("a store file that parses but is not of the store's shape is read as one that does not parse: its problem said, its text kept, nothing taken from it", async () => {
  for (const doc of [{ schemaVersion: 1, attempts: [{ attempt: 1 }] }, { schemaVersion: 1, attempts: [null] }, { schemaVersion: 1, attempts: "oops" }]) {
    const stateDir = await mkdtemp(join(tmpdir(), "stratum-support-state-"));
    await writeFile(stateLayout(stateDir).store, JSON.stringify(doc));
    const state = await readState(stateDir);
    assert.equal(state.store, undefined);
    assert.match(state.storeProblem ?? "", /^the store file does not parse \(not an installer store document: attempts/);
    assert.equal(state.storeRaw?.text, JSON.stringify(doc));
  }
});

test("a store file that is not JSON: its problem says where, and quotes none of the text around it (a damaged hash or token is there)", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "stratum-support-state-"));
  await writeFile(stateLayout(stateDir).store, `{"schemaVersion":1,\n "draft": {"password": $6$rounds=5000$SALTsaltSALT$HASHhashHASHhash}}`);
  const state = await readState(stateDir);
  assert.equal(state.storeProblem, "the store file does not parse (Unexpected token '$' at line 2, column 24)");
});

test("a store path that is no file (a named pipe, a link to a device or a folder) is said to be so: the read neither hangs nor reads without end", async () => {
  for (const [make, what] of [
    [(path: string) => void spawnSync("mkfifo", [path]), "a named pipe"],
    // A link in its place is not followed, wherever it leads (a device, a folder, /etc/shadow): the service makes none there.
    [(path: string) => symlinkSync("/dev/zero", path), "a link (not followed: the service makes none there)"],
    [(path: string) => symlinkSync(tmpdir(), path), "a link (not followed: the service makes none there)"],
    [(path: string) => void mkdirSync(path), "a folder"],
  ] as const) {
    const stateDir = await mkdtemp(join(tmpdir(), "stratum-support-state-"));
    make(stateLayout(stateDir).store);
    const state = await readState(stateDir);
    assert.equal(state.storeProblem, `the store file is ${what}, not a file`);
    assert.equal(state.storeRaw, undefined);
  }
});
