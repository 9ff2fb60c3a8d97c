import assert from "node:assert/strict";
import { lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createLogRing } from "../../../core/common/log-ring.ts";
import { fill, noTmpfs, tmpfsFor } from "../../helpers/full-disk.ts";
import { tempDir } from "../../helpers/installer.ts";

test("the state dir's log keeps the newest lines, under 1 MB in its two files", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const [path, older] = [join(dir, "service.log"), join(dir, "service.log.1")];
  const keep = createLogRing(path, older);
  const line = (i: number) => `${JSON.stringify({ i, message: "x".repeat(200) })}\n`;
  for (let i = 0; i < 12_000; i++) keep(line(i)); // ≈ 2.6 MB
  const sizes = [(await stat(path)).size, (await stat(older)).size];
  assert.ok(sizes[0]! + sizes[1]! <= 1024 * 1024 + line(0).length, `${sizes}`);
  const newest = (await readFile(path, "utf8")).trimEnd().split("\n");
  assert.equal(JSON.parse(newest.at(-1)!).i, 11_999);
  const oldest = JSON.parse((await readFile(older, "utf8")).split("\n")[0]!).i as number;
  assert.equal(oldest + (await readFile(older, "utf8")).trimEnd().split("\n").length, JSON.parse(newest[0]!).i, "no line lost between the two files");
});

test("a line the state dir cannot take is dropped, and the log goes on once it can", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const keep = createLogRing(join(dir, "gone/service.log"), join(dir, "gone/service.log.1"));
  assert.doesNotThrow(() => keep("lost\n"));
  await (await import("node:fs/promises")).mkdir(join(dir, "gone"));
  keep("kept\n");
  assert.equal(await readFile(join(dir, "gone/service.log"), "utf8"), "kept\n");
});

test("a link put where the log goes is not written through (a service run as root would append to whatever it leads to): the line is dropped", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const elsewhere = join(dir, "elsewhere");
  await writeFile(elsewhere, "not the installer's\n");
  const path = join(dir, "service.log");
  await symlink(elsewhere, path);
  const keep = createLogRing(path, join(dir, "service.log.1"));
  assert.doesNotThrow(() => keep("a line\n"));
  assert.equal(await readFile(elsewhere, "utf8"), "not the installer's\n");
  assert.ok((await lstat(path)).isSymbolicLink(), "the link is left as it is, for whoever put it there to see");
});

test("lines the log cannot keep are said once, not silently dropped: a link in its place named with what to do; when it takes lines again, said once too", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const elsewhere = join(dir, "elsewhere");
  await writeFile(elsewhere, "not the installer's\n");
  const path = join(dir, "service.log");
  await symlink(elsewhere, path);
  const said: (string | undefined)[] = [];
  const keep = createLogRing(path, join(dir, "service.log.1"), (problem) => said.push(problem));
  for (let i = 0; i < 5; i++) keep(`line ${i}\n`);
  assert.equal(said.length, 1, "once, not a line each");
  assert.equal(said[0], `${path} is a link: no line is written through a link (as root it would go into whatever the link leads to); remove it to have the lines kept there again, every line still goes to stderr (the journal)`);
  await (await import("node:fs/promises")).rm(path);
  keep("kept\n");
  keep("kept too\n");
  assert.deepEqual(said.slice(1), [undefined], "the end of the trouble said once");
  assert.equal(await readFile(path, "utf8"), "kept\nkept too\n");
  assert.equal(await readFile(elsewhere, "utf8"), "not the installer's\n");
});

test("a log whose folder refuses the line says why once (the error), and nothing while it goes on refusing", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const said: (string | undefined)[] = [];
  const keep = createLogRing(join(dir, "gone/service.log"), join(dir, "gone/service.log.1"), (problem) => said.push(problem));
  keep("lost\n");
  keep("lost too\n");
  assert.equal(said.length, 1);
  assert.match(said[0]!, /^.*gone\/service\.log takes no line \(ENOENT: .*\): check that its folder exists and takes new files from this user; lines go to stderr \(the journal\) alone until it does$/);
});

test("what keeps a line from the log is named, with what to do: a folder where the older half goes, a full disk", async (t) => {
  const dir = await tempDir("stratum-log-ring-");
  const [path, older] = [join(dir, "service.log"), join(dir, "service.log.1")];
  await writeFile(path, `${"x".repeat(512 * 1024)}\n`);
  await mkdir(older);
  const said: (string | undefined)[] = [];
  createLogRing(path, older, (problem) => said.push(problem))("lost\n");
  assert.deepEqual(said, [`${path} takes no line (EISDIR: a folder is where a file goes): ${older} is a folder, not a file: move it out of the way; lines go to stderr (the journal) alone until it does`]);
  if (noTmpfs) return t.skip(noTmpfs);
  const mount = join(dir, "mnt");
  if (!(await tmpfsFor(t, mount, "64k"))) return;
  fill(mount);
  const full: (string | undefined)[] = [];
  createLogRing(join(mount, "service.log"), join(mount, "service.log.1"), (problem) => full.push(problem))("lost\n");
  assert.deepEqual(full, [`${join(mount, "service.log")} takes no line (ENOSPC: no space left on its file system): free space on its file system; lines go to stderr (the journal) alone until it does`]);
});

test("no line leaves the file open: between lines the state dir holds nothing open, so an operator can remount it read-only", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const path = join(dir, "service.log");
  const keep = createLogRing(path, join(dir, "service.log.1"));
  keep("one\n");
  keep("two\n");
  const open = await Promise.all((await readdir("/proc/self/fd")).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => "")));
  assert.deepEqual(open.filter((target) => target.startsWith(dir)), []);
  assert.equal(await readFile(path, "utf8"), "one\ntwo\n");
});

test("a line the disk takes only part of (full) is cut off again: the next line starts a line of its own, not glued to half of one", { skip: noTmpfs }, async (t) => {
  const mount = join(await tempDir("stratum-log-ring-"), "mnt");
  if (!(await tmpfsFor(t, mount, "64k"))) return;
  const path = join(mount, "service.log");
  const keep = createLogRing(path, join(mount, "service.log.1"));
  const line = (message: string, bytes: number) => `${JSON.stringify({ message, pad: "x".repeat(bytes) })}\n`;
  keep(line("first", 4000));
  const free = fill(mount);
  keep(line("cut", 300)); // the rest of the first line's block takes ~80 bytes of it; then the disk is full
  await free();
  keep(line("after", 10));
  assert.deepEqual((await readFile(path, "utf8")).trimEnd().split("\n").map((l) => JSON.parse(l).message), ["first", "after"]);
});

test("a disk full but for a block's end takes the short lines and not the long ones: the trouble is said once, its end only once a line as long as a dropped one is kept", { skip: noTmpfs }, async (t) => {
  const mount = join(await tempDir("stratum-log-ring-"), "mnt");
  if (!(await tmpfsFor(t, mount, "64k"))) return;
  const path = join(mount, "service.log");
  const said: (string | undefined)[] = [];
  const keep = createLogRing(path, join(mount, "service.log.1"), (problem) => said.push(problem));
  const line = (message: string, bytes: number) => `${JSON.stringify({ message, pad: "x".repeat(bytes) })}\n`;
  keep(line("first", 4000));
  const free = fill(mount);
  // The first line's block has ~80 bytes left: a short line fits there, a long one does not.
  for (const [message, bytes] of [["long", 300], ["short", 0], ["long", 300], ["short", 0]] as const) keep(line(message, bytes));
  assert.equal(said.length, 1, `said: ${JSON.stringify(said)}`);
  await free();
  keep(line("long again", 300));
  assert.deepEqual(said.slice(1), [undefined]);
});

test("a log a killed installer left ending in half a line: the next start's first line starts a line of its own", async () => {
  const dir = await tempDir("stratum-log-ring-");
  const path = join(dir, "service.log");
  await writeFile(path, `${JSON.stringify({ message: "whole" })}\n{"message":"cut by the ki`);
  createLogRing(path, join(dir, "service.log.1"))(`${JSON.stringify({ message: "next start" })}\n`);
  const lines = (await readFile(path, "utf8")).split("\n");
  assert.deepEqual([lines.length, JSON.parse(lines[0]!).message, JSON.parse(lines[2]!).message, lines[3]], [4, "whole", "next start", ""]);
});
