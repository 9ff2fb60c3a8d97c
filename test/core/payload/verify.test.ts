import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { makePayload } from "../../../demo/make-payload.ts";
import type { ReleaseFile } from "../../../core/payload/release-file.ts";
import { checkChecksums, loadRelease, sizeProblem } from "../../../core/payload/verify.ts";
import { refusal, REFUSES_READ } from "../../helpers/full-disk.ts";

async function payload(): Promise<{ folder: string; release: ReleaseFile }> {
  const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
  await makePayload(folder);
  const loaded = await loadRelease(folder);
  assert.equal(loaded.kind, "ready");
  return { folder, release: loaded.release };
}

async function checksums(folder: string, release: ReleaseFile) {
  const progress: { bytes: number; file: string }[] = [];
  const problem = await checkChecksums(folder, release, (bytes, file) => progress.push({ bytes, file })).done;
  return { problem, progress };
}

describe("loadRelease", () => {
  test("a payload: its release model and images", async () => {
    const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
    const { images } = await makePayload(folder, { release: "2026.12.1" });
    const loaded = await loadRelease(folder);
    assert.equal(loaded.kind, "ready");
    assert.equal(loaded.release.model.release, "2026.12.1");
    assert.deepEqual(loaded.release.images, images);
  });

  test("no release.yaml: not loaded, saying where to copy it", async () => {
    const folder = join(await mkdtemp(join(tmpdir(), "stratum-payload-")), "absent");
    assert.deepEqual(await loadRelease(folder), {
      kind: "not-loaded",
      detail: `No release.yaml in ${folder}: copy the offline payload (release.yaml and the images it lists) there, or start the installer with --payload pointing at it. It is picked up without a restart.`,
    });
  });

  // SPEC §7: the detail always says how to fix it; "check its permissions" fixes neither a folder in the file's place nor a failing disk.
  test("a release.yaml that cannot be read: not loaded, naming the error and the fix for that error (a folder in its place)", async () => {
    const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
    await mkdir(join(folder, "release.yaml"));
    assert.deepEqual(await loadRelease(folder), {
      kind: "not-loaded",
      detail: `${join(folder, "release.yaml")} cannot be read (EISDIR): a folder is in its place; move it out of the way and copy the payload's release.yaml there.`,
    });
  });

  test("a release.yaml whose reads fail (a disk's EIO, a medium going bad): not loaded, the fix the disk's, not permissions", { skip: refusal ? undefined : `${REFUSES_READ} reads or is not there` }, async () => {
    const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
    await symlink(REFUSES_READ, join(folder, "release.yaml"));
    const loaded = await loadRelease(folder);
    assert.equal(loaded.kind, "not-loaded");
    assert.match(loaded.detail, /^.*release\.yaml cannot be read \(EINVAL\): the disk it is on failed to read it \(the kernel's log says why: journalctl -k\); copy the payload to a disk that reads\.$/);
  });

  test("an invalid release.yaml: not loaded, naming the problem", async () => {
    const folder = await mkdtemp(join(tmpdir(), "stratum-payload-"));
    await writeFile(join(folder, "release.yaml"), "release: 1\nprofiles: {}\nimages: []\nchannel: beta\n");
    const loaded = await loadRelease(folder);
    assert.equal(loaded.kind, "not-loaded");
    assert.match(loaded.detail, /release\.yaml is not a valid release file: \(top level\): .*\(channel\)\. Copy the payload's release\.yaml again\.$/);
  });
});

describe("sizeProblem", () => {
  test("every image there at its size: none", async () => {
    const { folder, release } = await payload();
    assert.equal(await sizeProblem(folder, release), undefined);
  });

  test("a missing image is named", async () => {
    const { folder, release } = await payload();
    const [first] = release.images;
    await rm(join(folder, first!.file));
    assert.equal(await sizeProblem(folder, release), `${first!.file} is missing from ${folder} (release.yaml lists it): copy the whole payload again.`);
  });

  test("an image with a folder in its place is said to be a folder, with a fix that works (a copy again would not replace the folder): not 'missing'", async () => {
    const { folder, release } = await payload();
    const [first] = release.images;
    await rm(join(folder, first!.file));
    await mkdir(join(folder, first!.file));
    assert.equal(await sizeProblem(folder, release), `${first!.file} in ${folder} is a folder, where release.yaml lists an image file: move it away, then copy that file from the payload again.`);
  });

  test("a short image is named with both sizes", async () => {
    const { folder, release } = await payload();
    const second = release.images[1]!;
    await writeFile(join(folder, second.file), "short");
    assert.equal(await sizeProblem(folder, release), `${second.file} is 5 bytes, release.yaml says ${second.size}: the copy is incomplete or from another release; copy it again.`);
  });
});

describe("checkChecksums", () => {
  test("every image matches: no problem, and progress adds up to every byte of every image", async () => {
    const { folder, release } = await payload();
    const { problem, progress } = await checksums(folder, release);
    assert.equal(problem, undefined);
    for (const image of release.images) {
      const bytes = progress.filter((p) => p.file === image.file).reduce((sum, p) => sum + p.bytes, 0);
      assert.equal(bytes, image.size, image.file);
    }
  });

  test("a damaged image: its actual and expected sha256", async () => {
    const { folder, release } = await payload();
    const [first] = release.images;
    const bytes = await readFile(join(folder, first!.file));
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(join(folder, first!.file), bytes);
    const { problem } = await checksums(folder, release);
    assert.match(problem!, new RegExp(`^${first!.file}: sha256 is [0-9a-f]{64}, release\\.yaml says ${first!.sha256}\\. The file is damaged or from another release: copy it again\\.$`));
  });

  test("an expected sha256 in upper case still matches", async () => {
    const { folder, release } = await payload();
    const upper = { ...release, images: release.images.map((image) => ({ ...image, sha256: image.sha256.toUpperCase() })) };
    assert.equal((await checksums(folder, upper)).problem, undefined);
  });

  test("an image that cannot be read, and one that does not match: both named, in order", async () => {
    const { folder, release } = await payload();
    const [first, second] = release.images;
    await rm(join(folder, first!.file));
    await mkdir(join(folder, first!.file));
    await writeFile(join(folder, second!.file), Buffer.alloc(second!.size));
    const { problem } = await checksums(folder, release);
    assert.match(problem!, new RegExp(`^${first!.file} cannot be read: EISDIR[^;]*; ${second!.file}: sha256 is [0-9a-f]{64}, release\\.yaml says ${second!.sha256}\\. `));
  });

  test("no images: nothing to check", async () => {
    const { folder, release } = await payload();
    assert.deepEqual(await checksums(folder, { ...release, images: [] }), { problem: undefined, progress: [] });
  });

  test("cancel ends the run; done still settles, with nothing found wrong in an intact payload", async () => {
    const { folder, release } = await payload();
    const run = checkChecksums(folder, release, () => {});
    await run.cancel();
    assert.equal(await run.done, undefined);
  });
});
