import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { TextFileProblem, readTextFile, readTextStream } from "../../../core/fs/read-text-file.ts";
import { readIfPresent } from "../../../core/fs/read-if-present.ts";
import { loadPlan } from "../../../cli/fleet/plan.ts";
import { tempDir } from "../../helpers/installer.ts";

test("a text file an operator names is read only when it is one: no wait on a named pipe, nothing read of a device, a folder or a file over the cap, and no byte that is not UTF-8", async () => {
  const folder = await tempDir("stratum-text-");
  const refused = async (path: string, message: string) =>
    assert.rejects(readTextFile(path, 1024 * 1024), (err: Error) => err instanceof TextFileProblem && err.message === message);
  await writeFile(join(folder, "plan.yaml"), "\ufeffcluster: {}\nname: nœud-01\n");
  assert.equal(await readTextFile(join(folder, "plan.yaml"), 1024), "cluster: {}\nname: nœud-01\n", "a BOM is dropped, UTF-8 kept");
  execFileSync("mkfifo", [join(folder, "pipe")]);
  await refused(join(folder, "pipe"), `${folder}/pipe is a named pipe, not a file`);
  await refused("/dev/zero", "/dev/zero is a device or socket, not a file");
  await mkdir(join(folder, "dir"));
  await refused(join(folder, "dir"), `${folder}/dir is a folder, not a file`);
  await writeFile(join(folder, "big"), "");
  await truncate(join(folder, "big"), 60 * 1024 * 1024);
  await refused(join(folder, "big"), `${folder}/big is 62914560 bytes, over the 1048576 a file here may have`);
  await writeFile(join(folder, "latin1.yaml"), Buffer.from("name: n\xe6ud-02\n", "latin1"));
  await refused(join(folder, "latin1.yaml"), `${folder}/latin1.yaml is not UTF-8 text (save it as UTF-8)`);
  await assert.rejects(readTextFile(join(folder, "none"), 10), { code: "ENOENT" });
});

test("a stream piped in (stdin) is read as a file is: refused once past the cap, not read to its end, and when a byte is not UTF-8; a BOM dropped", async () => {
  let given = 0;
  const endless = async function* () {
    for (;;) {
      given += 1;
      yield new Uint8Array(64 * 1024);
    }
  };
  await assert.rejects(readTextStream(endless(), "<stdin>", 1024 * 1024), (err: Error) => err instanceof TextFileProblem && err.message === "<stdin> is over the 1048576 bytes a file here may have");
  assert.equal(given, 17, "read up to the first chunk past the cap");
  const of = async function* (...chunks: Buffer[]) {
    yield* chunks;
  };
  assert.equal(await readTextStream(of(Buffer.from("\ufeffname: n"), Buffer.from("œud-01\n")), "<stdin>", 1024), "name: nœud-01\n");
  await assert.rejects(readTextStream(of(Buffer.from("n\xe6ud", "latin1")), "<stdin>", 1024), (err: Error) => err instanceof TextFileProblem && err.message === "<stdin> is not UTF-8 text (save it as UTF-8)");
});

test("a plan that is not UTF-8, or a pipe, is one problem naming why; nothing else is read", async () => {
  const folder = await tempDir("stratum-text-");
  await writeFile(join(folder, "latin1.yaml"), Buffer.from("cluster:\n  name: n\xe6ud\n", "latin1"));
  const result = await loadPlan(join(folder, "latin1.yaml"), {});
  assert.deepEqual(result.ok ? [] : result.problems.map((p) => p.message), ["cannot read the plan: it is not UTF-8 text (save it as UTF-8)"]);
  execFileSync("mkfifo", [join(folder, "pipe.yaml")]);
  const piped = await loadPlan(join(folder, "pipe.yaml"), {});
  assert.deepEqual(piped.ok ? [] : piped.problems.map((p) => p.message), ["cannot read the plan: it is a named pipe, not a file"]);
});

// Each said the path twice: "cannot read the plan: P is a folder, not a file" after "P:1:1 (plan):", and Node's
// "ENOENT: no such file or directory, open 'P'".
test("a plan that cannot be read says why once, after its name: not the path again", async () => {
  const folder = await tempDir("stratum-text-");
  await mkdir(join(folder, "dir.yaml"));
  for (const [name, why] of [["dir.yaml", "it is a folder, not a file"], ["none.yaml", "ENOENT: no such file or directory"]] as const) {
    const result = await loadPlan(join(folder, name), {});
    assert.deepEqual(result.ok ? [] : result.problems.map((p) => p.message), [`cannot read the plan: ${why}`], name);
  }
});

test("readIfPresent: a file's text, undefined for none; a named pipe in its place (a state dir's tls.key, install-code, a fleet's --state) refused, not waited on", { timeout: 30_000 }, async () => {
  const folder = await tempDir("stratum-text-");
  await writeFile(join(folder, "install-code"), "ABCD-EFGH-JKMN\n");
  assert.equal(await readIfPresent(join(folder, "install-code")), "ABCD-EFGH-JKMN\n");
  assert.equal(await readIfPresent(join(folder, "none")), undefined);
  execFileSync("mkfifo", [join(folder, "tls.key")]);
  await assert.rejects(readIfPresent(join(folder, "tls.key")), (err: Error) => err instanceof TextFileProblem && err.message === `${folder}/tls.key is a named pipe, not a file`);
  await writeFile(join(folder, "latin1"), Buffer.from("n\xe6ud\n", "latin1"));
  assert.equal(await readIfPresent(join(folder, "latin1")), "n\ufffdud\n", "lenient by default: what is readable is kept");
  await assert.rejects(readIfPresent(join(folder, "latin1"), { lenient: false }), TextFileProblem);
});
