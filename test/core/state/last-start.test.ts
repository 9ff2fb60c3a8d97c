import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { stateLayout } from "../../../core/state/layout.ts";
import { lastStartRanWith, writeLastStart } from "../../../core/state/last-start.ts";
import { fill, noTmpfs, tmpfsFor } from "../../helpers/full-disk.ts";

const stateDir = () => mkdtemp(join(tmpdir(), "stratum-last-start-"));

test("last-start.json: written whole (0600) and read back for the commands run beside the service", async () => {
  const dir = await stateDir();
  writeLastStart(dir, { startedAt: "2026-12-06T00:00:00.000Z", pid: 7, version: "1.0.0", notices: [], payload: "/srv/payload", hostFacts: "/etc/facts.json", listenHost: "0.0.0.0", port: 19443 });
  assert.equal((await stat(stateLayout(dir).lastStart)).mode & 0o777, 0o600);
  assert.equal(JSON.parse(await readFile(stateLayout(dir).lastStart, "utf8")).pid, 7);
  assert.deepEqual(await lastStartRanWith(dir), { payload: "/srv/payload", hostFacts: "/etc/facts.json", listenHost: "0.0.0.0", port: 19443 });
});

test("last-start.json missing, torn, of another shape or with odd fields: no answer for what is odd, the defaults hold", async () => {
  const rows: Array<[string | undefined, object]> = [
    [undefined, {}],
    ['{"payload": "/srv/pay', {}],
    ["[1, 2]", {}],
    ["null", {}],
    ['{"startedAt": "x", "pid": 1}', {}],
    ['{"payload": 5, "hostFacts": "", "listenHost": ["x"], "port": 70000}', {}],
    ['{"payload": "/p", "port": 9443.5}', { payload: "/p" }],
    ['{"listenHost": "[::1]", "port": 9443}', { port: 9443 }],
    ['{"listenHost": "evil.example/x#"}', {}],
    ['{"listenHost": "a b"}', {}],
    ['{"listenHost": "fd00::5"}', { listenHost: "fd00::5" }],
  ];
  for (const [text, ranWith] of rows) {
    const dir = await stateDir();
    if (text !== undefined) await writeFile(stateLayout(dir).lastStart, text);
    assert.deepEqual(await lastStartRanWith(dir), ranWith, String(text));
  }
});

test("last-start.json that is no file (a named pipe, a link to /dev/zero): no answer, neither a wait for ever nor a read without end", { timeout: 60_000 }, async () => {
  const { execFileSync } = await import("node:child_process");
  const { symlink } = await import("node:fs/promises");
  const pipe = await stateDir();
  execFileSync("mkfifo", [stateLayout(pipe).lastStart]);
  assert.deepEqual(await lastStartRanWith(pipe), {});
  const zero = await stateDir();
  await symlink("/dev/zero", stateLayout(zero).lastStart);
  assert.deepEqual(await lastStartRanWith(zero), {});
});

test("last-start.json a full disk refuses: the error is thrown, the one before is kept whole, and no temp file is left holding space", { skip: noTmpfs }, async (t) => {
  const dir = join(await stateDir(), "mnt");
  if (!(await tmpfsFor(t, dir, "64k"))) return;
  const start = (port: number) => ({ startedAt: "2026-12-06T00:00:00.000Z", pid: 7, version: "1.0.0", notices: ["n".repeat(8000)], payload: "/srv/payload", listenHost: "0.0.0.0", port });
  writeLastStart(dir, start(19443));
  const free = fill(dir, { leave: 1 });
  t.after(free);
  assert.throws(() => writeLastStart(dir, start(19444)), { code: "ENOSPC" });
  assert.deepEqual((await readdir(dir)).sort(), ["filler", "last-start.json"]);
  assert.equal((await lastStartRanWith(dir)).port, 19443);
});
