import assert from "node:assert/strict";
import { appendFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";
import { harness, logLines, tempDir, untilNoBlockers, waitFor, type RunningInstaller } from "../helpers/installer.ts";

const lab = harness();
const start = (payload: string) => lab.start({ payload });
async function blockers(installer: RunningInstaller) {
  return (await installer.request("/v1/installer/status")).json.blockers as { code: string; detail: string }[] | undefined;
}
async function until(installer: RunningInstaller, code: string) {
  return waitFor(`blocker ${code}`, async () => (await blockers(installer))?.find((b) => b.code === code));
}

describe("offline payload", () => {
  test("no release.yaml → PAYLOAD_NOT_LOADED saying where; POST /install 409 INSTALL_BLOCKED; copying a payload in clears it without a restart", async () => {
    const folder = join(await tempDir(), "payload");
    const installer = await start(folder);
    const notLoaded = await until(installer, "PAYLOAD_NOT_LOADED");
    assert.match(notLoaded.detail, new RegExp(`No release.yaml in ${folder}`));
    assert.match(notLoaded.detail, /without a restart/);
    await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    const refused = await installer.request("/v1/installer/install", { method: "POST" });
    assertProblem(refused, 409, "INSTALL_BLOCKED");
    assert.deepEqual(refused.json.blockers.map((b: any) => b.code), ["PAYLOAD_NOT_LOADED"]);
    assert.equal((await installer.request("/v1/installer/status")).json.attempt, 0, "a refused install starts no attempt");

    await makePayload(folder, { release: "2026.11.1" });
    await untilNoBlockers(installer);
    const options = await installer.request("/v1/installer/options");
    assert.equal(options.json.release, "2026.11.1");
    const started = await installer.request("/v1/installer/install", { method: "POST" });
    assert.equal(started.status, 202);
    const report = await waitFor("report", async () => {
      const r = await installer.request("/v1/installer/install/report");
      return r.json.payloadVersion ? r.json : undefined;
    });
    assert.equal(report.payloadVersion, "2026.11.1");
  });

  test("a damaged image → PAYLOAD_INVALID naming the file, expected and actual sha256", async () => {
    const folder = join(await tempDir(), "payload");
    const { images } = await makePayload(folder);
    const damaged = join(folder, images[0]!.file);
    const bytes = await readFile(damaged);
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(damaged, bytes);
    const installer = await start(folder);
    const invalid = await until(installer, "PAYLOAD_INVALID");
    assert.match(invalid.detail, new RegExp(`${images[0]!.file}: sha256 is [0-9a-f]{64}, release.yaml says ${images[0]!.sha256}`));
    assert.match(invalid.detail, /copy it again/);
  });

  test("a missing or short image → PAYLOAD_INVALID naming the file and sizes", async () => {
    const folder = join(await tempDir(), "payload");
    const { images } = await makePayload(folder);
    await writeFile(join(folder, images[1]!.file), "short");
    const installer = await start(folder);
    const invalid = await until(installer, "PAYLOAD_INVALID");
    assert.equal(invalid.detail, `${images[1]!.file} is 5 bytes, release.yaml says ${images[1]!.size}: the copy is incomplete or from another release; copy it again.`);
  });

  test("a release.yaml with an unknown key or a path outside the folder is refused, named", async () => {
    const folder = join(await tempDir(), "payload");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "release.yaml"), "release: 1\nprofiles: {}\nimages:\n  - file: ../etc/passwd\n    size: 1\n    sha256: " + "a".repeat(64) + "\nchannel: beta\n");
    const installer = await start(folder);
    const notLoaded = await until(installer, "PAYLOAD_NOT_LOADED");
    assert.match(notLoaded.detail, /is not a valid release file/);
    assert.match(notLoaded.detail, /images\[0\]\.file: must be a path inside the payload folder/);
    assert.match(notLoaded.detail, /channel/);
  });

  test("while checksums are read, the PAYLOAD_VERIFYING blocker carries numeric progress up to the images' total", async () => {
    const folder = join(await tempDir(), "payload");
    const MiB = 1024 * 1024;
    await makePayload(folder, { images: [{ file: "images/a.tar", bytes: 96 * MiB }, { file: "images/b.tar", bytes: 96 * MiB }] });
    const installer = await start(folder);
    const seen: { doneBytes: number; totalBytes: number }[] = [];
    await waitFor("the check to end", async () => {
      const now = (await installer.request("/v1/installer/status")).json.blockers as { code: string; progress?: { doneBytes: number; totalBytes: number } }[] | undefined;
      for (const b of now ?? []) if (b.code === "PAYLOAD_VERIFYING" && b.progress) seen.push(b.progress);
      return now?.length ? undefined : true;
    });
    assert.ok(seen.length > 0, "no progress seen while verifying");
    for (const p of seen) {
      assert.equal(p.totalBytes, 192 * MiB);
      assert.ok(Number.isInteger(p.doneBytes) && p.doneBytes >= 0 && p.doneBytes <= p.totalBytes, JSON.stringify(p));
    }
  });

  // The installer judges a folder once it has been still this long (core/payload/watch.ts's settleMs).
  const SETTLE_MS = 1000;

  test("a payload copied in slowly is not judged half-way: PAYLOAD_VERIFYING while it changes, then it clears", async () => {
    const folder = join(await tempDir(), "payload");
    const source = join(await tempDir(), "source");
    const { images, releaseYaml } = await makePayload(source, { images: [{ file: "images/big.tar", bytes: 256 * 1024 }] });
    const content = await readFile(join(source, images[0]!.file));
    const image = join(folder, images[0]!.file);
    const installer = await start(folder);
    await until(installer, "PAYLOAD_NOT_LOADED");
    await mkdir(join(folder, "images"), { recursive: true });
    // A copy proves something only if the folder was never still for SETTLE_MS before it was whole (a test held up by a
    // busy machine may pause longer, and the installer is then right to judge): such a copy is made again.
    for (let copies = 1; ; copies++) {
      const logged = logLines(installer).length;
      let changedAt = performance.now();
      let stillest = 0;
      /** The longest the folder may have been still is from a change's first moment to the end of the next one's. */
      const change = async (write: () => Promise<void>) => {
        const calledAt = performance.now();
        await write();
        stillest = Math.max(stillest, performance.now() - changedAt);
        changedAt = calledAt;
      };
      await change(() => writeFile(join(folder, "release.yaml"), releaseYaml));
      await change(() => appendFile(image, content.subarray(0, 32 * 1024)));
      // The copy goes on at its pace while the test waits for the installer to see it begin (a copy paused for that
      // wait was still for a poll of the installer's and more, and judged rightly half-way).
      const copied = (async () => {
        for (let offset = 32 * 1024; offset < content.length; offset += 32 * 1024) {
          await new Promise((r) => setTimeout(r, 250)); // the copy's pace (slow, as over a network), not a wait for the installer
          await change(() => appendFile(image, content.subarray(offset, offset + 32 * 1024)));
        }
      })();
      // What the installer said once it saw the copy begin (none: it was already judged and cleared, seen too late).
      const begun = await waitFor("the copy seen", async () => {
        const now = await blockers(installer);
        return now?.find((b) => b.code.startsWith("PAYLOAD_") && b.code !== "PAYLOAD_NOT_LOADED") ?? (now?.length ? undefined : { code: "none" });
      });
      await copied;
      await untilNoBlockers(installer);
      const judged = logLines(installer).slice(logged).map((line) => line.message);
      if (stillest < SETTLE_MS) {
        assert.ok(!judged.includes("payload refused"), `judged half-way: ${judged.join(", ")}`);
        assert.equal(begun.code, "PAYLOAD_VERIFYING");
        assert.ok(judged.includes("payload verified"), judged.join(", "));
        break;
      }
      assert.ok(copies < 5, `5 copies in a row were still for ${SETTLE_MS} ms or more half-way (${Math.round(stillest)} ms the last)`);
      await Promise.all([rm(join(folder, "release.yaml")), rm(image)]);
      await until(installer, "PAYLOAD_NOT_LOADED");
    }
  });
});
