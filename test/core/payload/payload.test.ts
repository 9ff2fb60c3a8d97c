import assert from "node:assert/strict";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { makePayload } from "../../../demo/make-payload.ts";
import type { Logger } from "../../../core/common/log.ts";
import { createPayloadManager, type PayloadManager } from "../../../core/payload/payload.ts";
import type { PayloadState } from "../../../core/payload/state.ts";
import { BUILT_IN_RELEASE } from "../../../core/payload/release-model.ts";

function manager(folder: string, monotonic?: () => number) {
  const logged: [string, Record<string, unknown> | undefined, "info" | "warn" | "error"][] = [];
  const log: Logger = { info: (m, f) => logged.push([m, f, "info"]), warn: (m, f) => logged.push([m, f, "warn"]), error: (m, f) => logged.push([m, f, "error"]) };
  const payload = createPayloadManager({ folder, log, pollMs: 20, settleMs: 100, monotonic });
  const kinds: PayloadState["kind"][] = [];
  payload.onChange((state) => kinds.push(state.kind));
  return { payload, logged, kinds };
}

async function until(payload: PayloadManager, kind: PayloadState["kind"]): Promise<void> {
  for (const deadline = Date.now() + 5000; payload.state().kind !== kind; await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`still ${payload.state().kind}, waiting for ${kind}`);
  }
}

test("a payload in place: verifying when start returns, then ready with its release, logged once", async () => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
  const { images } = await makePayload(folder, { release: "2026.11.3" });
  const { payload, logged, kinds } = manager(folder);
  await payload.start();
  assert.equal(payload.state().kind, "verifying");
  assert.equal(payload.blockers()[0]?.code, "PAYLOAD_VERIFYING");
  await until(payload, "ready");
  await payload.stop();
  assert.deepEqual(kinds, ["verifying", "ready"]);
  assert.deepEqual(payload.blockers(), []);
  assert.equal(payload.release().release, "2026.11.3");
  const totalBytes = images.reduce((sum, image) => sum + image.size, 0);
  assert.deepEqual(
    logged.map(([message, fields]) => [message, fields?.release, fields?.bytes]),
    [["payload verified", "2026.11.3", totalBytes]],
  );
});

test("no payload, then one copied in: not loaded, settling while it changes, then ready without a restart", async () => {
  const folder = join(await mkdtemp(join(tmpdir(), "stratum-payload-")), "payload");
  const { payload, kinds } = manager(folder);
  await payload.start();
  assert.equal(payload.state().kind, "not-loaded");
  assert.equal(payload.blockers()[0]?.code, "PAYLOAD_NOT_LOADED");
  assert.equal(payload.release(), BUILT_IN_RELEASE);
  await makePayload(folder, { release: "2026.11.4" });
  await until(payload, "ready");
  await payload.stop();
  assert.deepEqual(kinds, ["not-loaded", "settling", "verifying", "ready"]);
  assert.equal(payload.release().release, "2026.11.4");
});

test("a release.yaml copied in before its images is not judged while they still come in, however long it has been still", async () => {
  // The settle time's clock is the test's: moved 50 ms an append (half the settle time), past it once the copy is over.
  let clock = 0;
  const source = await mkdtemp(join(tmpdir(), "stratum-payload-"));
  const { images, releaseYaml } = await makePayload(source, { images: [{ file: "images/big.tar", bytes: 64 * 1024 }] });
  const content = await readFile(join(source, images[0]!.file));
  const folder = join(await mkdtemp(join(tmpdir(), "stratum-payload-")), "payload");
  const { payload, logged } = manager(folder, () => clock);
  await payload.start();
  await mkdir(join(folder, "images"), { recursive: true });
  await writeFile(join(folder, "release.yaml"), releaseYaml);
  for (let offset = 0; offset < content.length; offset += 4096) {
    await appendFile(join(folder, images[0]!.file), content.subarray(offset, offset + 4096));
    clock += 25;
    await sleep(30); // the copy's pace: the watch looks at it half-way (its poll is 20 ms), not a wait it must win
  }
  assert.equal(payload.state().kind, "settling", "release.yaml, still for 400 ms of the clock, was judged with its image half-copied");
  // The clock moves on at each look of the test's (the last append may be seen after it moved once).
  for (const deadline = Date.now() + 5000; payload.state().kind !== "ready"; await sleep(20)) {
    assert.ok(Date.now() < deadline, `still ${payload.state().kind}`);
    clock += 200;
  }
  await payload.stop();
  assert.deepEqual(logged.map(([message]) => message), ["payload verified"]);
});

test("a damaged image: invalid, and the log says so as a warning, naming the file (the journal told only of a payload verified)", async () => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
  await makePayload(folder, { release: "2026.11.5", images: [{ file: "images/ceph.tar", bytes: 4096 }] });
  await writeFile(join(folder, "images/ceph.tar"), Buffer.alloc(4096, 7));
  const { payload, logged } = manager(folder);
  await payload.start();
  await until(payload, "invalid");
  await payload.stop();
  assert.deepEqual(
    logged.map(([message, fields, level]) => [level, message, fields?.release, fields?.code]),
    [["warn", "payload refused", "2026.11.5", "PAYLOAD_INVALID"]],
  );
  assert.match(String(logged[0]?.[1]?.detail), /images\/ceph\.tar: sha256 is [0-9a-f]{64}, release\.yaml says/);
});

test("a verified payload whose image is overwritten, then whose release.yaml is removed, is judged again each time without a restart: PAYLOAD_INVALID naming the file, ready once copied back, PAYLOAD_NOT_LOADED", async () => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
  await makePayload(folder, { release: "2026.11.6", images: [{ file: "images/ceph.tar", bytes: 4096 }] });
  const image = join(folder, "images/ceph.tar");
  const good = await readFile(image);
  const { payload, kinds } = manager(folder);
  await payload.start();
  await until(payload, "ready");
  // Damaged in place, at its size (a copy over it from another release's image of the same size).
  await writeFile(image, Buffer.alloc(4096, 7));
  await until(payload, "invalid");
  assert.deepEqual(payload.blockers().map((b) => b.code), ["PAYLOAD_INVALID"]);
  assert.match(payload.blockers()[0]!.detail, /^images\/ceph\.tar: sha256 is [0-9a-f]{64}, release\.yaml says [0-9a-f]{64}\. .*copy it again\.$/);
  await writeFile(image, good);
  await until(payload, "ready");
  assert.deepEqual(payload.blockers(), []);
  await rm(join(folder, "release.yaml"));
  await until(payload, "not-loaded");
  await payload.stop();
  assert.deepEqual(payload.blockers().map((b) => b.code), ["PAYLOAD_NOT_LOADED"]);
  assert.match(payload.blockers()[0]!.detail, /^No release\.yaml in .*: copy the offline payload/);
  // One folder change may be seen twice by the watcher (a removal's events), judged alike each time: the judgements as
  // they changed, in order.
  const judged = kinds.filter((kind) => kind !== "settling" && kind !== "verifying").filter((kind, i, all) => kind !== all[i - 1]);
  assert.deepEqual(judged, ["ready", "invalid", "ready", "not-loaded"]);
});
