import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { appendFile, cp, mkdir, open, readFile, rm, stat, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FleetState, StateFileError, journalPathOf } from "../../../cli/fleet/state.ts";
import { journalHeader, journalLine } from "../../../cli/fleet/state-journal.ts";
import { ROOT, tempDir } from "../../helpers/installer.ts";
import { noTmpfs, tmpfsFor } from "../../helpers/full-disk.ts";

const run = promisify(execFile);

const name = (i: number) => `node-${String(i).padStart(4, "0")}`;

/** The journal's node record lines (its first line names the plan). */
const records = (journal: string) => journal.split("\n").slice(1).filter((line) => line !== "");

describe("fleet: the resume file", () => {
  it("records each node's attempt, last event and draft version; a later run reads them, and hears when the plan changed", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const first = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual(first.node("node-01"), {});
    assert.equal(first.previousPlanHash, undefined);
    await first.set("node-01", { etag: '"e1"', attempt: 1, lastSeq: 0 });
    first.seen("node-01", 12);
    await first.close();
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const written = JSON.parse(await readFile(path, "utf8"));
    assert.deepEqual(written.nodes, { "node-01": { etag: '"e1"', attempt: 1, lastSeq: 12 } });
    assert.equal(written.planHash, "hash-1");

    const same = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual(same.node("node-01"), { etag: '"e1"', attempt: 1, lastSeq: 12 });
    assert.equal(same.previousPlanHash, undefined);
    const changed = await FleetState.open(path, "plan.yaml", "hash-2");
    assert.equal(changed.previousPlanHash, "hash-1");
    assert.equal(changed.node("node-01").lastSeq, 12);
  });

  it("a node's draft version (its ETag, a node's text) with a C1 control (0x9b, a CSI) and a bidi override is written escaped in the journal and the document, never raw, and read back the same", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const etag = '"\x9b6n\u202eevil"';
    const RAW = /[\x7f-\x9f\u202e]/;
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-01", { attempt: 1 });
    await state.set("node-01", { etag });
    const journal = await readFile(journalPathOf(path), "utf8");
    assert.doesNotMatch(journal, RAW, journal);
    assert.equal((await FleetState.open(path, "plan.yaml", "hash-1")).node("node-01").etag, etag);
    await state.close();
    const document = await readFile(path, "utf8");
    assert.doesNotMatch(document, RAW, document);
    assert.equal(JSON.parse(document).nodes["node-01"].etag, etag);
  });

  it("changes made while an append is in flight join one next append; each set() resolves once its change is on disk", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-00", { attempt: 1 });
    const journal = journalPathOf(path);
    const inJournal = async (name: string, attempt: number) =>
      (await readFile(journal, "utf8")).split("\n").some((line) => line === JSON.stringify({ node: name, record: { attempt } }));
    const changes = Array.from({ length: 100 }, (_, i) => state.set("node-01", { attempt: i + 1 }).then(() => inJournal("node-01", i + 1)));
    const last = await Promise.all(changes);
    assert.equal(last[99], true, "the last change is on disk once its set() resolves");
    assert.ok(records(await readFile(journal, "utf8")).length <= 2, "a hundred changes of one node at once cost at most two lines: the one in flight and the next");
    const names = Array.from({ length: 100 }, (_, i) => `node-${String(i + 1).padStart(3, "0")}`);
    assert.deepEqual(await Promise.all(names.map((name) => state.set(name, { attempt: 1 }).then(() => inJournal(name, 1)))), Array(100).fill(true));
  });

  it("a change appends one line of its node's record: as many bytes with a thousand nodes as with ten, and the document is not rewritten", async () => {
    const appended = async (nodes: number) => {
      const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
      const state = await FleetState.open(path, "plan.yaml", "hash-1");
      await Promise.all(Array.from({ length: nodes }, (_, i) => state.set(name(i), { attempt: 1, etag: '"e1"', lastSeq: 0 })));
      const document = await stat(path);
      const before = (await stat(journalPathOf(path))).size;
      await state.set(name(7), { lastSeq: 100 });
      state.seen(name(8), 200);
      await state.flush();
      assert.equal((await stat(path)).ino, document.ino, "the document is not rewritten by a change");
      assert.equal((await stat(journalPathOf(path))).mode & 0o777, 0o600);
      return (await stat(journalPathOf(path))).size - before;
    };
    const ten = await appended(10);
    assert.ok(ten > 0);
    assert.equal(await appended(1_000), ten);
  });

  it("at its end, a run writes the whole document and leaves the journal empty", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-01", { attempt: 1 });
    state.seen("node-01", 5);
    await state.close();
    assert.deepEqual(JSON.parse(await readFile(path, "utf8")).nodes, { "node-01": { attempt: 1, lastSeq: 5 } });
    assert.deepEqual(records(await readFile(journalPathOf(path), "utf8")), []);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it("a run killed mid-append (a torn last line): the next run gets every complete line, drops the torn one, and its own lines follow cleanly", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const first = await FleetState.open(path, "plan.yaml", "hash-1");
    await first.set("node-01", { attempt: 1, etag: '"e1"' });
    await first.set("node-02", { attempt: 2 });
    const line = JSON.stringify({ node: "node-03", record: { attempt: 1 } });
    await appendFile(journalPathOf(path), line.slice(0, 20));

    const second = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual([second.node("node-01"), second.node("node-02"), second.node("node-03")], [{ attempt: 1, etag: '"e1"' }, { attempt: 2 }, {}]);
    await second.set("node-03", { attempt: 1 });
    await appendFile(journalPathOf(path), JSON.stringify({ node: "node-04", record: { attempt: 1 } }).slice(0, 30));

    const third = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual(["node-01", "node-02", "node-03", "node-04"].map((n) => third.node(n)), [{ attempt: 1, etag: '"e1"' }, { attempt: 2 }, { attempt: 1 }, {}]);
    await third.set("node-04", { attempt: 1 });
    const fourth = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual(fourth.node("node-04"), { attempt: 1 }, "the torn line does not glue onto the next run's first line");
    assert.deepEqual(records(await readFile(journalPathOf(path), "utf8")), [], "the opening folds the journal into the document");
    assert.deepEqual(Object.keys(JSON.parse(await readFile(path, "utf8")).nodes), ["node-01", "node-02", "node-03", "node-04"]);
  });

  it("a crash between the document's rename and the journal's truncation: the lines already in the document give the same state again", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-01", { attempt: 1, lastSeq: 3 });
    await state.set("node-02", { attempt: 1, outcome: "failed" });
    await state.set("node-01", { lastSeq: 9 });
    const lines = await readFile(journalPathOf(path), "utf8");
    await state.close();
    const compacted = await readFile(path, "utf8");
    await writeFile(journalPathOf(path), lines);

    const again = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual([again.node("node-01"), again.node("node-02")], [{ attempt: 1, lastSeq: 9 }, { attempt: 1, outcome: "failed" }]);
    assert.deepEqual(JSON.parse(await readFile(path, "utf8")).nodes, JSON.parse(compacted).nodes);
  });

  it("a journal of another plan than its document is not applied; a changed plan still reads the document and hears so", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-01", { attempt: 1 });
    await state.close();
    const foreign = [{ journal: 1, planHash: "hash-0" }, { node: "node-01", record: { attempt: 7 } }, { node: "node-02", record: { attempt: 7 } }];
    await writeFile(journalPathOf(path), foreign.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const again = await FleetState.open(path, "plan.yaml", "hash-1");
    assert.deepEqual([again.node("node-01"), again.node("node-02"), again.previousPlanHash], [{ attempt: 1 }, {}, undefined]);

    await again.set("node-02", { attempt: 1 });
    const changed = await FleetState.open(path, "plan.yaml", "hash-2");
    assert.deepEqual([changed.node("node-01"), changed.node("node-02"), changed.previousPlanHash], [{ attempt: 1 }, { attempt: 1 }, "hash-1"]);
  });

  it("opening changes no file: a run that changes no node (a dry run, a refused plan) leaves the state as it found it", async () => {
    const folder = await tempDir("stratum-state-");
    const path = join(folder, "plan.fleet-state.json");
    await FleetState.open(path, "plan.yaml", "hash-1");
    await assert.rejects(stat(path), { code: "ENOENT" });
    await assert.rejects(stat(journalPathOf(path)), { code: "ENOENT" });
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-01", { attempt: 1 });
    await appendFile(journalPathOf(path), '{"node": "no');
    const [document, journal] = await Promise.all([readFile(path, "utf8"), readFile(journalPathOf(path), "utf8")]);
    assert.equal((await FleetState.open(path, "plan.yaml", "hash-2")).previousPlanHash, "hash-1");
    assert.deepEqual([await readFile(path, "utf8"), await readFile(journalPathOf(path), "utf8")], [document, journal]);
    assert.equal((await FleetState.open(path, "plan.yaml", "hash-2")).previousPlanHash, "hash-1", "a run that wrote nothing does not hide the plan's change");
  });

  it("a corrupt line before the last is refused, naming the file and the line; nothing is overwritten", async () => {
    const path = join(await tempDir("stratum-state-"), "plan.fleet-state.json");
    const state = await FleetState.open(path, "plan.yaml", "hash-1");
    await state.set("node-01", { attempt: 1 });
    await appendFile(journalPathOf(path), '{"node": "node-02", "rec\n');
    await state.set("node-03", { attempt: 1 });
    const document = await readFile(path, "utf8");
    const journal = await readFile(journalPathOf(path), "utf8");
    await assert.rejects(FleetState.open(path, "plan.yaml", "hash-1"), {
      message: `the state file ${journalPathOf(path)} cannot be read (line 2 is not a fleet journal line): move it away, or give another with --state`,
    });
    assert.equal(await readFile(path, "utf8"), document);
    assert.equal(await readFile(journalPathOf(path), "utf8"), journal);
  });

  it("a file that is not a fleet state file is refused, not overwritten", async () => {
    const path = join(await tempDir("stratum-state-"), "state.json");
    for (const text of ["{", '{"version": 2, "nodes": {}}', "[]"]) {
      await writeFile(path, text);
      await assert.rejects(FleetState.open(path, "plan.yaml", "h"), StateFileError);
      assert.equal(await readFile(path, "utf8"), text);
    }
  });

  // `nodes: []` was taken: each record set on the list was left out of every write, so no run ever resumed from it.
  it("a state file whose nodes are not records of nodes (a list, a record of the wrong shape) is refused, not overwritten", async () => {
    const path = join(await tempDir("stratum-state-"), "state.json");
    const texts = ['{"version": 1, "nodes": []}', '{"version": 1, "nodes": {"node-01": "done"}}', '{"version": 1, "nodes": {"node-01": {"attempt": "2"}}}', '{"version": 1, "nodes": {"node-01": {"outcome": "maybe"}}}'];
    for (const text of texts) {
      await writeFile(path, text);
      await assert.rejects(FleetState.open(path, "plan.yaml", "h"), { message: new RegExp(`^the state file ${path} cannot be read \\(not a fleet state file: nodes`) }, text);
      assert.equal(await readFile(path, "utf8"), text);
    }
    await writeFile(path, '{"version": 1, "nodes": {}}');
    await writeFile(journalPathOf(path), `${journalHeader("h")}${JSON.stringify({ node: "node-01", record: { lastSeq: -4 } })}\n${journalLine("node-02", { attempt: 1 })}`);
    await assert.rejects(FleetState.open(path, "plan.yaml", "h"), { message: `the state file ${journalPathOf(path)} cannot be read (line 2 is not a fleet journal line): move it away, or give another with --state` });
  });

  // A named pipe (--state on one by mistake) was waited on for good before a node was contacted: the run hung, silent.
  it("a state file or journal that is a named pipe is refused, not waited on", { timeout: 30_000 }, async () => {
    const folder = await tempDir("stratum-state-");
    for (const [path, pipe] of [[join(folder, "a.json"), join(folder, "a.json")], [join(folder, "b.json"), journalPathOf(join(folder, "b.json"))]] as const) {
      if (path !== pipe) await writeFile(path, '{"version": 1, "nodes": {}}');
      await run("mkfifo", [pipe]);
      const opening = FleetState.open(path, "plan.yaml", "h").then(() => "opened", (error: Error) => error.message);
      // Bounds a hang only: a reader waiting on the pipe is let go (a writer opens it and closes it) and the test fails.
      const bound = new AbortController();
      const waited = await Promise.race([opening, sleep(10_000, undefined, { signal: bound.signal }).catch(() => undefined)]);
      bound.abort();
      if (waited === undefined) await (await open(pipe, constants.O_WRONLY | constants.O_NONBLOCK)).close();
      assert.equal(waited, `the state file ${pipe} cannot be read (is a named pipe, not a file): move it away, or give another with --state`);
    }
  });

  it("a folder where the state file or its journal goes (made while the run went on) is named, and the remedy is to move it, not to free space", async () => {
    const folder = await tempDir("stratum-state-");
    const path = join(folder, "state.json");
    for (const inTheWay of [path, journalPathOf(path)]) {
      const state = await FleetState.open(path, "plan.yaml", "h");
      await mkdir(join(inTheWay, "in-the-way"), { recursive: true });
      await assert.rejects(state.set("node-01", { attempt: 1 }), {
        message: `the state file ${path} cannot be written (EISDIR: a folder is where a file goes): ${inTheWay} is a folder, not a file: move it out of the way, or give another with --state; run the same command again to go on where this run stopped`,
      });
      await rm(inTheWay, { recursive: true });
    }
  });

  it("a state file that cannot be read or written is named, with what to do (a full disk said only ENOSPC)", async (t) => {
    const folder = await tempDir("stratum-state-");
    await writeFile(join(folder, "file"), "");
    await assert.rejects(FleetState.open(join(folder, "file/state.json"), "plan.yaml", "h"), {
      message: `the state file ${folder}/file/state.json cannot be read (ENOTDIR: not a directory, open '${folder}/file/state.json'): move it away, or give another with --state`,
    });
    if (noTmpfs) return t.skip(noTmpfs);
    const mount = join(folder, "mnt");
    if (!(await tmpfsFor(t, mount, "64k"))) return;
    const full = (file: string) => ({
      message: `the state file ${mount}/${file} cannot be written (ENOSPC: no space left on its file system): free space on its file system, or give another with --state; run the same command again to go on where this run stopped`,
    });
    const opened = await FleetState.open(join(mount, "state.json"), "plan.yaml", "h");
    const told: string[] = [];
    opened.onTrouble = (message) => told.push(message);
    await opened.set("node-01", { attempt: 1 });
    await writeFile(join(mount, "filler"), Buffer.alloc(64 * 1024)).catch(() => undefined);
    // A line fits in the page the journal has; two hundred of them need more pages than there are.
    await assert.rejects(Promise.all(Array.from({ length: 200 }, (_, i) => opened.set(name(i), { attempt: 1, lastSeq: i }))), full("state.json"));
    await assert.rejects(opened.set("node-01", { attempt: 2 }), full("state.json"));
    assert.deepEqual(told, [full("state.json").message], "the run is told once, as the writes begin to fail");
    const other = await FleetState.open(join(mount, "other.json"), "plan.yaml", "h");
    await assert.rejects(other.set("node-01", { attempt: 1 }), full("other.json"));
    // Read-only (remounted mid-run): the remedy is a remount, not free space.
    const readOnly = await FleetState.open(join(mount, "ro.json"), "plan.yaml", "h");
    await rm(join(mount, "filler"), { force: true });
    await promisify(execFile)("mount", ["-o", "remount,ro", mount]);
    await assert.rejects(readOnly.set("node-01", { attempt: 1 }), {
      message: `the state file ${mount}/ro.json cannot be written (EROFS: its file system is read-only): remount its file system read-write, or give another with --state; run the same command again to go on where this run stopped`,
    });
  });
  it("a state file (and journal) an older fleet left, killed -9 mid-run (test/fixtures/older-fleet-state: 2026-12-04's a document alone, 2026-12-06's a document and its journal), is resumed with its records as they were, the plan the same", async () => {
    const fixtures = join(ROOT, "test/fixtures/older-fleet-state");
    const cases: Array<[string, Record<string, unknown>]> = [
      ["2026-12-04-48603ae", { etag: '"Svh7gMS6cYenFLjcuy58Gj"', attempt: 1, lastSeq: 1 }],
      ["2026-12-06-684a982", { etag: '"Svh7gMS6cYenFLjcuy58Gj"', attempt: 1, lastSeq: 0 }],
    ];
    for (const [fixture, node01] of cases) {
      const folder = await tempDir("stratum-state-");
      await cp(join(fixtures, fixture), folder, { recursive: true });
      const path = join(folder, "cluster.fleet-state.json");
      const written = JSON.parse(await readFile(path, "utf8"));
      const state = await FleetState.open(path, written.plan, written.planHash);
      assert.equal(state.previousPlanHash, undefined, fixture);
      assert.deepEqual(state.node("node-01"), node01, fixture);
      await state.set("node-02", { attempt: 1, lastSeq: 0 });
      await state.close();
      assert.deepEqual(JSON.parse(await readFile(path, "utf8")).nodes, { "node-01": node01, "node-02": { attempt: 1, lastSeq: 0 } }, fixture);
    }
  });
});
