import assert from "node:assert/strict";
import { appendFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { FolderWatch } from "../../../core/payload/watch.ts";

const FILES = ["release.yaml", "images/a.tar"];

/** A watch over a temp folder that, like the payload, takes the folder as judged whenever it settles. */
async function watched(settleMs: number, monotonic?: () => number) {
  const folder = await mkdtemp(join(tmpdir(), "stratum-watch-"));
  await writeFile(join(folder, "release.yaml"), "release: 1\n");
  const calls: ("changed" | "settled")[] = [];
  let looks = 0;
  const watch: FolderWatch = new FolderWatch(
    { folder, pollMs: 20, settleMs, ...(monotonic ? { monotonic } : {}) },
    {
      // Asked at each look at the folder, once the one before it has ended.
      files: () => (looks++, FILES),
      changed: async () => {
        calls.push("changed");
      },
      settled: async () => {
        calls.push("settled");
        await watch.judged(FILES);
      },
    },
  );
  await watch.judged(FILES);
  watch.start();
  /** Until the watch looked at the folder twice more: the second began after this call, and after the first ended. */
  const twoMoreLooks = () => {
    const from = looks;
    return until("two more looks", () => looks >= from + 2);
  };
  return { folder, calls, watch, twoMoreLooks };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !ok(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

test("a still folder is neither changed nor settled", async () => {
  let clock = 0;
  const { calls, watch, twoMoreLooks } = await watched(100, () => clock);
  clock += 1000;
  await twoMoreLooks();
  watch.stop();
  assert.deepEqual(calls, []);
});

test("a change to a listed file: changed, then settled once it is still, once", async () => {
  let clock = 0;
  const { folder, calls, watch, twoMoreLooks } = await watched(100, () => clock);
  await writeFile(join(folder, "release.yaml"), "release: 2\n");
  // The clock moves on at each look of the test's: a write may be seen in two parts, each a change.
  await until("settled", () => ((clock += 1000), calls.includes("settled")));
  await twoMoreLooks();
  watch.stop();
  assert.deepEqual([...new Set(calls)], ["changed", "settled"]);
  assert.equal(calls.indexOf("settled"), calls.length - 1, "settled once, last");
});

test("a file appearing that the release lists counts as a change", async () => {
  const { folder, calls, watch } = await watched(100);
  await mkdir(join(folder, "images"));
  await writeFile(join(folder, "images/a.tar"), "x");
  await until("settled", () => calls.includes("settled"));
  watch.stop();
  assert.equal(calls[0], "changed");
});

test("a file the release does not list is not watched", async () => {
  let clock = 0;
  const { folder, calls, watch, twoMoreLooks } = await watched(100, () => clock);
  await writeFile(join(folder, "notes.txt"), "hello");
  clock += 1000;
  await twoMoreLooks();
  watch.stop();
  assert.deepEqual(calls, []);
});

test("a copy in progress is not settled until it stops changing", async () => {
  // The settle time is measured by a monotonic clock (a time sync that steps the wall clock back by hours, as a fresh
  // node's first one may, must not hold a payload's check for hours), here the test's: moved 100 ms an append, 2.5 s of
  // changes in all, each 100 ms after the last however long the test process stalls between two; moved past the settle
  // time once the copy is over.
  let clock = 0;
  const { folder, calls, watch } = await watched(500, () => clock);
  for (let i = 0; i < 25; i++) {
    await appendFile(join(folder, "release.yaml"), "# more\n");
    clock += 100;
    await sleep(40); // the copy's pace, not a wait it must win: the clock alone says how long it was still
  }
  await until("changed", () => calls.includes("changed"));
  assert.ok(!calls.includes("settled"), "settled while the file was still changing");
  // Moved on at each look of the test's: the last append may be seen after a single move.
  await until("settled", () => ((clock += 500), calls.includes("settled")));
  watch.stop();
});

test("stop: later changes are not seen", async () => {
  const { folder, calls, watch } = await watched(100);
  watch.stop();
  // A watch of the same folder and poll, started after the stop, sees the change and looks twice more: the stopped one,
  // had it run on, looked as often.
  let looks = 0;
  const seen: string[] = [];
  const witness = new FolderWatch({ folder, pollMs: 20, settleMs: 100 }, { files: () => (looks++, FILES), changed: async () => void seen.push("changed"), settled: async () => undefined });
  await witness.judged(FILES);
  witness.start();
  await writeFile(join(folder, "release.yaml"), "release: 3\n");
  await until("the witness sees the change", () => seen.length > 0);
  const from = looks;
  await until("two more polls of the witness", () => looks >= from + 2);
  witness.stop();
  assert.deepEqual(calls, []);
});
