import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { storageError } from "../../../core/fs/storage-error.ts";
import type { Store } from "../../../core/state/store.ts";
import { VALID_DRAFT } from "../../helpers/fixtures.ts";
import { inProcessApp } from "../../helpers/app.ts";

/** An app whose next draft write waits until the test lets it go, then fails (a full disk) or goes through. */
async function heldDraftWrite(t: TestContext) {
  let holdNext = false;
  let release!: (fail: boolean) => void;
  let held!: () => void;
  const writeHeld = new Promise<void>((resolve) => (held = resolve));
  const wrap = (store: Store): Store => ({
    slice(key) {
      const real = store.slice(key);
      if (key !== "draft") return real;
      return {
        ...real,
        async save() {
          if (!holdNext) return real.save();
          holdNext = false;
          const failed = await new Promise<boolean>((resolve) => {
            release = resolve;
            held();
          });
          if (failed) throw storageError(installer.stateDir, Object.assign(new Error("no space left on device"), { code: "ENOSPC" }));
          return real.save();
        },
      };
    },
  });
  const installer = await inProcessApp(t, { store: wrap });
  await installer.untilNoBlockers();
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  return {
    installer,
    holdNextWrite: () => (holdNext = true),
    writeHeld,
    release: (fail: boolean) => release(fail),
  };
}

const CHANGED = { ...VALID_DRAFT, hostname: "node-02" };

/** Resolves once `object[method]` has been called; the call itself goes through unchanged. */
function called<T extends object, K extends keyof T>(object: T, method: K): Promise<void> {
  const original = (object[method] as (...args: unknown[]) => unknown).bind(object);
  return new Promise((resolve) => {
    object[method] = ((...args: unknown[]) => {
      const result = original(...args);
      resolve();
      return result;
    }) as T[K];
  });
}

for (const fails of [true, false]) {
  test(`an install admitted while a draft's save is in flight waits for it, and installs the draft on disk (the save ${fails ? "fails: the previous draft" : "succeeds: the new draft"})`, async (t) => {
    const { installer, holdNextWrite, writeHeld, release } = await heldDraftWrite(t);
    holdNextWrite();
    // The install has reached the attempts service once its begin was called: admitted, or waiting.
    const asked = called(installer.services.attempts, "begin");
    const put = installer.request("/v1/installer/config", { method: "PUT", body: CHANGED });
    await writeHeld;
    const install = installer.request("/v1/installer/install", { method: "POST" });
    await asked;
    release(fails);
    assert.equal((await put).status, fails ? 507 : 200);
    const admitted = await install;
    assert.equal(admitted.status, 202, admitted.text);
    const expected = fails ? "node-01" : "node-02";
    const onDisk = JSON.parse(await readFile(join(installer.stateDir, "installer.json"), "utf8"));
    assert.equal(onDisk.attempts.at(-1).config.config.hostname, expected, "the attempt recorded the draft on disk");
    assert.equal(onDisk.draft.config.hostname, expected);
    assert.equal((await installer.request("/v1/installer/config")).json.config.hostname, expected);
  });
}

test("a change sent while an earlier one is still being written is written after it: the earlier one's rollback never undoes it, and the next install takes it", async (t) => {
  const { installer, holdNextWrite, writeHeld, release } = await heldDraftWrite(t);
  holdNextWrite();
  const first = installer.request("/v1/installer/config", { method: "PUT", body: CHANGED });
  await writeHeld;
  const asked = called(installer.services.draft, "patch");
  const second = installer.request("/v1/installer/config", { method: "PATCH", body: { hostname: "node-03" }, contentType: "application/merge-patch+json" });
  await asked;
  release(true);
  assert.equal((await first).status, 507);
  assert.equal((await second).status, 200);
  assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
  const onDisk = JSON.parse(await readFile(join(installer.stateDir, "installer.json"), "utf8"));
  assert.equal(onDisk.attempts.at(-1).config.config.hostname, "node-03");
  assert.equal((await installer.request("/v1/installer/config")).json.config.hostname, "node-03");
});
