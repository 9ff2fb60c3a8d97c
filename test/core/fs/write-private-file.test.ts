import assert from "node:assert/strict";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { writePrivateFile } from "../../../core/fs/write-private-file.ts";
import { tempDir } from "../../helpers/installer.ts";

async function folderFor(t: TestContext): Promise<string> {
  const folder = await tempDir("stratum-private-");
  t.after(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

test("a private file is 0600, a file that was there with other bits included", async (t) => {
  const folder = await folderFor(t);
  const fresh = join(folder, "fresh");
  const existing = join(folder, "existing");
  await writeFile(existing, "old", { mode: 0o644 });
  await writePrivateFile(fresh, "new\n");
  await writePrivateFile(existing, "new\n");
  for (const path of [fresh, existing]) {
    assert.equal(await readFile(path, "utf8"), "new\n");
    assert.equal((await stat(path)).mode & 0o777, 0o600, path);
  }
});

test("exclusive: a file that exists is left as it is", async (t) => {
  const path = join(await folderFor(t), "lock");
  await writePrivateFile(path, "first", { exclusive: true });
  await assert.rejects(writePrivateFile(path, "second", { exclusive: true }), { code: "EEXIST" });
  assert.equal(await readFile(path, "utf8"), "first");
});

test("mode 0644: others may read it, whatever the umask; a file that was there private included", async (t) => {
  const folder = await folderFor(t);
  const existing = join(folder, "existing");
  await writeFile(existing, "old", { mode: 0o600 });
  const umask = process.umask(0o077);
  try {
    await writePrivateFile(join(folder, "fresh"), "new\n", { mode: 0o644 });
    await writePrivateFile(existing, "new\n", { mode: 0o644 });
  } finally {
    process.umask(umask);
  }
  for (const path of [join(folder, "fresh"), existing]) assert.equal((await stat(path)).mode & 0o777, 0o644, path);
});
