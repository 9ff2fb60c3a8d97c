import assert from "node:assert/strict";
import { chown, lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { test, type TestContext } from "node:test";
import { removeInterruptedWritesOf, writeFileAtomic, writeFilesAtomic } from "../../../core/fs/atomic-write.ts";
import { DurableJsonFile } from "../../../core/fs/durable-json-file.ts";
import { writePrivateFile } from "../../../core/fs/write-private-file.ts";
import { writeLastStart } from "../../../core/state/last-start.ts";
import { stateLayout, tempPathOf } from "../../../core/state/layout.ts";
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

test("a temp file's name taken by a link (planted, or a crash's leftover) is replaced, never followed: the file it points to is left as it was", async (t) => {
  const folder = await folderFor(t);
  const victim = join(folder, "victim");
  const writes: [string, (path: string) => Promise<unknown>][] = [
    ["writeFileAtomic", (path) => writeFileAtomic(path, "new\n")],
    ["the store's file", (path) => new DurableJsonFile(path).write({ n: 1 })],
    ["last-start.json", async () => writeLastStart(folder, { startedAt: "2026-12-06T10:00:00.000Z", pid: 1, version: "t", notices: [], payload: "/p", listenHost: "127.0.0.1", port: 1 })],
  ];
  for (const [what, write] of writes) {
    await writeFile(victim, "root's file\n", { mode: 0o644 });
    const path = what === "last-start.json" ? stateLayout(folder).lastStart : join(folder, `${what.replace(/\W/g, "-")}.json`);
    await symlink(victim, tempPathOf(path));
    await write(path);
    assert.equal(await readFile(victim, "utf8"), "root's file\n", `${what}: the link was followed`);
    assert.equal((await stat(victim)).mode & 0o777, 0o644, `${what}: the target's mode changed`);
    assert.ok((await lstat(path)).isFile(), `${what}: ${path} is not a file of its own`);
    await assert.rejects(lstat(tempPathOf(path)), { code: "ENOENT" });
  }
});

test("files written together (exclusive): a write that fails leaves none of them, nor a temp file; a name that exists is left as it is (EEXIST)", async (t) => {
  const folder = await folderFor(t);
  const [key, cert] = [join(folder, "tls.key"), join(folder, "tls.crt")];
  // The second one's write fails (its folder is not there): the first, written whole, is not put in place alone.
  await assert.rejects(writeFilesAtomic([{ path: key, data: "key\n", exclusive: true }, { path: join(folder, "gone/tls.crt"), data: "cert\n", exclusive: true }]), { code: "ENOENT" });
  assert.deepEqual(await readdir(folder), []);
  await writeFile(cert, "theirs\n");
  await assert.rejects(writeFilesAtomic([{ path: key, data: "key\n", exclusive: true }, { path: cert, data: "cert\n", exclusive: true }]), { code: "EEXIST" });
  assert.deepEqual(await readdir(folder), ["tls.crt"], "the key it linked is taken back, its temp files gone");
  assert.equal(await readFile(cert, "utf8"), "theirs\n");
  await writeFilesAtomic([{ path: key, data: "key\n", exclusive: true }, { path: cert, data: "cert\n" }]);
  assert.deepEqual((await readdir(folder)).sort(), ["tls.crt", "tls.key"]);
  for (const [path, text] of [[key, "key\n"], [cert, "cert\n"]] as const) {
    assert.equal(await readFile(path, "utf8"), text);
    assert.equal((await stat(path)).mode & 0o777, 0o600, path);
  }
});

test("removeInterruptedWritesOf removes a file's temp files (.NAME.PID.tmp) and nothing else: a folder of such a name is left, and stops nothing", async () => {
  const folder = await tempDir();
  const path = join(folder, "node.yaml");
  await writeFile(join(folder, ".node.yaml.4242.tmp"), "secrets");
  await mkdir(join(folder, ".node.yaml.4243.tmp"));
  await writeFile(join(folder, ".node.yaml.tmp"), "an operator's");
  assert.deepEqual(await removeInterruptedWritesOf(path), [join(folder, ".node.yaml.4242.tmp")]);
  assert.deepEqual((await readdir(folder)).sort(), [".node.yaml.4243.tmp", ".node.yaml.tmp"]);
});

test("removeInterruptedWritesOf with ofGoneProcesses: an unguessable temp file (.NAME.PID.TAG.tmp) of a gone process goes, a live one's stays, a name of another shape stays", async () => {
  const folder = await tempDir();
  const path = join(folder, "b.tar.gz");
  const live = tempPathOf(path, { unguessable: true });
  assert.notEqual(live, tempPathOf(path, { unguessable: true }), "a tag of its own each time");
  // A pid over the kernel's maximum (4194304) runs no process.
  const gone = join(folder, ".b.tar.gz.99999999.0123456789ab.tmp");
  await Promise.all([live, gone, join(folder, ".b.tar.gz.99999999.0123.tmp"), join(folder, "b.tar.gz.0123456789ab.part")].map((file) => writeFile(file, "")));
  assert.deepEqual(await removeInterruptedWritesOf(path, { ofGoneProcesses: true }), [gone]);
  assert.deepEqual((await readdir(folder)).sort(), [".b.tar.gz.99999999.0123.tmp", basename(live), "b.tar.gz.0123456789ab.part"].sort());
});

test("removeInterruptedWritesOf leaves a temp file another user owns, even of a gone process: in a folder others may write to, a file of that name is not ours to remove", { skip: process.getuid?.() !== 0 && "needs root to give a file to another user" }, async () => {
  const folder = await tempDir();
  const path = join(folder, "b.tar.gz");
  const planted = join(folder, ".b.tar.gz.99999999.0123456789ab.tmp");
  const ours = join(folder, ".b.tar.gz.99999998.0123456789ab.tmp");
  await Promise.all([planted, ours].map((file) => writeFile(file, "")));
  await chown(planted, 65534, 65534);
  assert.deepEqual(await removeInterruptedWritesOf(path, { ofGoneProcesses: true }), [ours]);
  assert.deepEqual(await readdir(folder), [basename(planted)]);
});

