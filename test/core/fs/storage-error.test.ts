import assert from "node:assert/strict";
import { chmod, mkdir, open, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { makeFolder } from "../../../core/fs/private-dir.ts";
import { notWrittenBecause, startStorageProblem, stateDirNotReadable, storageError, storageFault, writeRemedy } from "../../../core/fs/storage-error.ts";
import { tempDir } from "../../helpers/installer.ts";

const FREE = "free space on its file system";
const REMOUNT = "remount its file system read-write, or give the installer another --state-dir";
const PERMIT = `make it writable by the user the installer runs as (uid ${process.getuid?.()}): check its owner and mode`;

const errno = (code: string, path?: string, syscall = "open") => Object.assign(new Error(`${code}: ${syscall}${path ? ` '${path}'` : ""}`), { code, syscall, ...(path ? { path } : {}) });

test("a start's write error is the state dir's only when it is: its own files, or a write that names none; an operator's file it cannot read is left as Node says it", () => {
  const dir = "/var/lib/stratum/installer";
  const said = (code: string, why: string, remedy = FREE) => `the state dir ${dir} cannot be written (${code}: ${why}): ${remedy}, then start the installer again`;
  assert.equal(startStorageProblem(dir, errno("ENOSPC", undefined, "write")), said("ENOSPC", "no space left on its file system"));
  assert.equal(startStorageProblem(dir, errno("EROFS", `${dir}/installer.lock.1.new`)), said("EROFS", "its file system is read-only", REMOUNT));
  assert.equal(startStorageProblem(dir, errno("EACCES", `${dir}/tls.key`)), said("EACCES", "permission denied", PERMIT));
  assert.equal(startStorageProblem(dir, storageError(dir, errno("ENOSPC", undefined, "write"))), said("ENOSPC", "no space left on its file system"), "a later write's storage error is said as the lock's is");
  assert.equal(startStorageProblem(dir, storageError(dir, errno("EROFS", undefined, "write"))), said("EROFS", "its file system is read-only", REMOUNT));
  for (const other of [errno("EACCES", "/etc/ssl/private/node.key"), errno("EACCES", `${dir}-old/tls.key`), errno("EIO", undefined, "read"), errno("ENOENT", `${dir}/x`), new Error("a bug")]) {
    assert.equal(startStorageProblem(dir, other), undefined, other.message);
  }
});

test("a write that finds the state dir gone (removed while the service ran) says so and what to do: freeing space would not help", () => {
  const dir = "/var/lib/stratum/installer";
  for (const code of ["ENOENT", "ENOTDIR"]) {
    const { detail } = storageError(dir, errno(code, `${dir}/.installer.json.42.tmp`));
    assert.equal(detail, `The state dir ${dir}, or a folder in it, is gone (${code}: was it removed while the installer ran?); nothing was changed. Restart the installer, which makes it again; what it held (the draft, the attempts' records) is lost.`);
  }
});

test("what a start or an attempt says to do follows the storage error: restart for a state dir gone, free space for a full one", () => {
  const dir = "/var/lib/stratum/installer";
  const gone = storageFault(storageError(dir, errno("ENOENT", `${dir}/.installer.json.42.tmp`)));
  assert.equal(gone.remedy, "restart the installer, which makes the state dir again");
  assert.equal(startStorageProblem(dir, storageError(dir, errno("ENOENT", `${dir}/x`))), `${gone.why.replace(/^The/, "the")}: start the installer again, which makes it again`);
  assert.equal(storageFault(storageError(dir, errno("ENOSPC", undefined, "write"))).remedy, FREE);
});

test("the remedy follows the cause: free space for a full disk or quota, a remount for a read-only file system, permissions for a refusal", () => {
  const dir = "/var/lib/stratum/installer";
  const cases: [string, string][] = [["ENOSPC", FREE], ["EDQUOT", FREE], ["EROFS", REMOUNT], ["EACCES", PERMIT], ["EPERM", PERMIT]];
  for (const [code, remedy] of cases) {
    const error = storageError(dir, errno(code, `${dir}/.installer.json.42.tmp`));
    assert.equal(storageFault(error).remedy, remedy, code);
    assert.match(error.detail, new RegExp(`; nothing was changed\\. ${remedy[0]!.toUpperCase()}${remedy.slice(1).replace(/[.()]/g, "\\$&")}, then retry`), code);
    if (code !== "ENOSPC" && code !== "EDQUOT") assert.doesNotMatch(error.detail, /free space/i, code);
  }
});

describe("a cause other than a full, read-only or refused file system has a remedy of its own, naming the path", () => {
  const dir = "/var/lib/stratum/installer";
  const EXAMINE = "check the disk it is on (the kernel's log: journalctl -k) and its file system (fsck)";
  // Each on a real state dir, with what an operator can leave in it: a folder where a file goes, a file where a folder goes.
  const cases: { name: string; make: (state: string) => Promise<NodeJS.ErrnoException>; why: string; remedy: (state: string) => string }[] = [
    {
      name: "EISDIR: a folder where the store's file goes (the rename onto it)",
      make: async (state) => {
        await mkdir(join(state, "installer.json"));
        await writeFile(join(state, ".installer.json.42.tmp"), "{}");
        return rename(join(state, ".installer.json.42.tmp"), join(state, "installer.json")).then(() => assert.fail("renamed"), (err: NodeJS.ErrnoException) => err);
      },
      why: "EISDIR: a folder is where a file goes",
      remedy: (state) => `${state}/installer.json is a folder, not a file: move it out of the way`,
    },
    {
      name: "EISDIR: a folder where the service log goes (an open to append)",
      make: async (state) => {
        await mkdir(join(state, "service.log"));
        return open(join(state, "service.log"), "a").then(() => assert.fail("opened"), (err: NodeJS.ErrnoException) => err);
      },
      why: "EISDIR: a folder is where a file goes",
      remedy: (state) => `${state}/service.log is a folder, not a file: move it out of the way`,
    },
    {
      name: "ENOTDIR: a file where the events folder goes (an attempt's log opened in it)",
      make: async (state) => {
        await writeFile(join(state, "events"), "");
        return open(join(state, "events/attempt-1.jsonl"), "a").then(() => assert.fail("opened"), (err: NodeJS.ErrnoException) => err);
      },
      why: "ENOTDIR: a file is where a folder goes",
      remedy: (state) => `${state}/events is a file, not a folder: move it out of the way`,
    },
    {
      name: "EEXIST: a file where the events folder is to be made",
      make: async (state) => {
        await writeFile(join(state, "events"), "");
        return makeFolder(join(state, "events"), "the folder").then(() => assert.fail("made"), (err: NodeJS.ErrnoException) => err);
      },
      why: "EEXIST: a file is where a folder goes",
      remedy: (state) => `${state}/events is a file, not a folder: move it out of the way`,
    },
    { name: "EIO: the disk failing", make: async () => errno("EIO", undefined, "write"), why: "EIO: an I/O error", remedy: () => EXAMINE },
  ];
  for (const { name, make, why, remedy } of cases) {
    test(name, async () => {
      const state = await tempDir();
      const cause = await make(state);
      const error = storageError(state, cause);
      assert.equal(storageFault(error).gone, false, name);
      assert.equal(storageFault(error).remedy, remedy(state));
      assert.equal(error.detail, `The state dir ${state} cannot be written (${why}); nothing was changed. ${remedy(state)[0]!.toUpperCase()}${remedy(state).slice(1)}, then retry; the installer recovers by itself.`);
      assert.equal(startStorageProblem(state, error), `the state dir ${state} cannot be written (${why}): ${remedy(state)}, then start the installer again`);
      assert.doesNotMatch(error.detail, /free space/i);
    });
  }

  test("ENOTDIR with nothing in the way any more (the state dir went, and a file stood there for a moment) is a state dir gone", () => {
    assert.equal(storageFault(storageError(dir, errno("ENOTDIR", `${dir}/events/attempt-1.jsonl`))).gone, true);
  });
});

test("any file's write (not the state dir's alone): a folder or a file in the way is named and moved, and mkdir's EEXIST is said as ENOTDIR", async () => {
  const folder = await tempDir();
  await mkdir(join(folder, "fleet-report.json"));
  await writeFile(join(folder, ".fleet-report.json.42.tmp"), "{}");
  const folderInTheWay = await rename(join(folder, ".fleet-report.json.42.tmp"), join(folder, "fleet-report.json")).then(() => assert.fail("renamed"), (err: NodeJS.ErrnoException) => err);
  assert.equal(notWrittenBecause(folderInTheWay), "EISDIR: a folder is where a file goes");
  assert.equal(writeRemedy(folderInTheWay), `${folder}/fleet-report.json is a folder, not a file: move it out of the way`);
  await writeFile(join(folder, "bundles"), "");
  const fileInTheWay = await makeFolder(join(folder, "bundles"), "the folder").then(() => assert.fail("made"), (err: NodeJS.ErrnoException) => err);
  assert.equal(notWrittenBecause(fileInTheWay), "EEXIST: a file is where a folder goes");
  assert.equal(writeRemedy(fileInTheWay), `${folder}/bundles is a file, not a folder: move it out of the way`);
  const under = await open(join(folder, "bundles/node-01.tar.gz"), "w").then(() => assert.fail("opened"), (err: NodeJS.ErrnoException) => err);
  assert.equal(writeRemedy(under), `${folder}/bundles is a file, not a folder: move it out of the way`);
});

test("too many open files (EMFILE, this process's; ENFILE, the system's) is said as that, with the limit to raise, not a folder or a disk to check", () => {
  for (const code of ["EMFILE", "ENFILE"]) {
    const cause = Object.assign(new Error(`${code}: too many open files`), { code });
    assert.equal(notWrittenBecause(cause), `${code}: too many open files`);
    assert.equal(writeRemedy(cause), "raise the open-files limit (LimitNOFILE= in the service's unit, ulimit -n in a shell), or wait for connections to close");
  }
});

test("a cause writeRemedy has no remedy of its own for (a pseudo file system's ENOENT, ENAMETOOLONG) is not guessed to be a full disk", async () => {
  const refused = await open("/proc/stratum-no-such-file", "w").then(() => assert.fail("opened"), (err: NodeJS.ErrnoException) => err);
  for (const cause of [refused, Object.assign(new Error("name too long"), { code: "ENAMETOOLONG" })]) {
    assert.doesNotMatch(writeRemedy(cause), /free space/);
    assert.equal(writeRemedy(cause), "check that its folder exists and takes new files from this user");
  }
});

test("a state dir whose parent folder is closed to this user (chmod 000): the parent is named, not the state dir", { skip: process.getuid?.() === 0 ? "root passes through any folder's mode" : undefined }, async (t) => {
  const folder = await tempDir();
  const parent = join(folder, "closed");
  const stateDir = join(parent, "state");
  await mkdir(stateDir, { recursive: true });
  await chmod(parent, 0o000);
  t.after(() => chmod(parent, 0o700));
  const err = await readFile(join(stateDir, "install-code")).then(() => assert.fail("read"), (error: NodeJS.ErrnoException) => error);
  assert.equal(
    stateDirNotReadable(stateDir, err),
    `cannot read ${stateDir}/install-code (EACCES: permission denied): the folder ${parent}, above the state dir ${stateDir}, does not let this user (uid ${process.getuid?.()}) through: run it with sudo (or as a user it lets through)`,
  );
  await chmod(parent, 0o700);
  await chmod(stateDir, 0o000);
  const own = await readFile(join(stateDir, "install-code")).then(() => assert.fail("read"), (error: NodeJS.ErrnoException) => error);
  assert.equal(stateDirNotReadable(stateDir, own), `cannot read ${stateDir}/install-code (EACCES: permission denied): the state dir ${stateDir} is readable by its owner or root alone: run it with sudo (or as that user)`);
  await chmod(stateDir, 0o700);
});
