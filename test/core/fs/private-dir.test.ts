import assert from "node:assert/strict";
import { chmod, chown, mkdir, stat, symlink, writeFile } from "node:fs/promises";
import { NeedsOperator } from "../../../core/common/errors.ts";
import { join } from "node:path";
import { test } from "node:test";
import { ensurePrivateDir, makeFolder } from "../../../core/fs/private-dir.ts";
import { tempDir } from "../../helpers/installer.ts";

test("a private folder is made with its parents, 0700", async () => {
  const path = join(await tempDir(), "a/b/state");
  assert.equal(await ensurePrivateDir(path), path);
  assert.equal((await stat(path)).mode & 0o777, 0o700);
});

test("a folder that cannot be made is refused at once with one sentence naming it and why; /proc hung mkdir -p for good", async () => {
  const file = join(await tempDir(), "file");
  await writeFile(file, "");
  for (const [path, why] of [
    ["/proc/stratum-state", /^the folder \/proc\/stratum-state cannot be made: \/proc does not let folders be made in it \(ENOENT\)$/],
    ["/proc/x/y/z", /^the folder \/proc\/x\/y\/z cannot be made: \/proc does not let folders be made in it \(ENOENT\)$/],
    [join(file, "state"), new RegExp(`^the folder ${file}/state cannot be made: ${file} is a file, not a folder \\(ENOTDIR\\)$`)],
    [join(file, "a/b"), new RegExp(`^the folder ${file}/a/b cannot be made: ${file} is a file, not a folder \\(ENOTDIR\\)$`)],
    [file, new RegExp(`^the folder ${file} cannot be made: ${file} is a file, not a folder \\(EEXIST\\)$`)],
  ] as const) {
    await assert.rejects(ensurePrivateDir(path), (err: Error) => {
      assert.match(err.message, why);
      return true;
    });
  }
});

test("a folder someone else owns is refused, naming its owner: whoever owns it could read or plant the install code and the key", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("needs root to give a folder to another user");
  const path = join(await tempDir(), "state");
  await ensurePrivateDir(path);
  await chown(path, 65534, 65534);
  await chmod(path, 0o755);
  await assert.rejects(ensurePrivateDir(path, "the state dir"), (err: Error) => {
    assert.equal(err.message, `the state dir ${path} belongs to uid 65534, not to this user (uid 0): whoever owns it could read or plant the install code and the TLS key; chown it to uid 0, or choose another folder`);
    return true;
  });
  assert.equal((await stat(path)).mode & 0o777, 0o755, "someone else's folder is left as it was");
});

test("makeFolder: a path with a trailing slash (as -o DIR/ names a folder) is made, or refused in one sentence when a file is there", async () => {
  const folder = await tempDir();
  await makeFolder(`${join(folder, "new")}/`, "the bundles' folder");
  assert.ok((await stat(join(folder, "new"))).isDirectory());
  await makeFolder(`${join(folder, "new")}/`, "the bundles' folder");
  const file = join(folder, "file");
  await writeFile(file, "");
  await assert.rejects(makeFolder(`${file}/`, "the bundles' folder"), { message: `the bundles' folder cannot be made: ${file} is a file, not a folder (EEXIST)` });
});

test("a private folder that is a link is refused, naming its target: the installer (root) would make the folder it points at 0700 and write its key there", async () => {
  const folder = await tempDir();
  await mkdir(folder, { recursive: true });
  const target = join(folder, "elsewhere");
  await mkdir(target, { mode: 0o755 });
  const linked = join(folder, "state");
  await symlink(target, linked);
  await assert.rejects(ensurePrivateDir(linked, "the state dir", "another --state-dir"), (err: Error) => {
    assert.ok(err instanceof NeedsOperator);
    assert.equal(err.message, `the state dir ${linked} is a link (to ${target}): give the folder itself, or choose another --state-dir`);
    return true;
  });
  assert.equal((await stat(target)).mode & 0o777, 0o755, "its target left as it is");
});

test("a state dir that is a link to nowhere (a loop, or its target gone) is refused naming the link, not its parent folder as \"a file\"", async () => {
  const folder = await tempDir();
  const loop = join(folder, "loop");
  await symlink(loop, loop);
  const dangling = join(folder, "dangling");
  await symlink(join(folder, "gone"), dangling);
  for (const link of [loop, dangling, join(loop, "sub")]) {
    await assert.rejects(ensurePrivateDir(link, "the state dir", "another --state-dir"), (err: Error) => {
      assert.ok(err instanceof NeedsOperator, err.message);
      assert.doesNotMatch(err.message, new RegExp(`${folder} is a file`));
      assert.match(err.message, new RegExp(`${link.replace("/sub", "")} is a link that leads to no folder \\(a loop, or its target is gone\\)`));
      return true;
    });
  }
});
