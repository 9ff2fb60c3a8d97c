import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { HASH_WORKER_JS } from "../../build/worker-assets.ts";
import { kindOf } from "../fs/private-dir.ts";
import { RELEASE_FILE, readReleaseFile, type ReleaseFile } from "./release-file.ts";

export type LoadedRelease = { kind: "ready"; release: ReleaseFile } | { kind: "not-loaded"; detail: string };

/** What makes release.yaml readable again, by its read's error code: permissions only for a refusal. */
function readRemedy(code: string): string {
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "check its permissions";
    case "EISDIR":
      return "a folder is in its place; move it out of the way and copy the payload's release.yaml there";
    default:
      // EIO and the like: the medium the payload is on (a USB stick, a failing disk) does not give its bytes.
      return "the disk it is on failed to read it (the kernel's log says why: journalctl -k); copy the payload to a disk that reads";
  }
}

/** The folder's release.yaml, or why there is none to install from, said so a person can fix it. */
export async function loadRelease(folder: string): Promise<LoadedRelease> {
  const read = await readReleaseFile(folder);
  const path = join(folder, RELEASE_FILE);
  switch (read.kind) {
    case "ready":
      return read;
    case "missing":
      return {
        kind: "not-loaded",
        detail: `No ${RELEASE_FILE} in ${folder}: copy the offline payload (release.yaml and the images it lists) there, or start the installer with --payload pointing at it. It is picked up without a restart.`,
      };
    case "unreadable":
      return { kind: "not-loaded", detail: `${path} cannot be read (${read.problem}): ${readRemedy(read.problem)}.` };
    case "invalid":
      return { kind: "not-loaded", detail: `${path} is not a valid release file: ${read.problem}. Copy the payload's release.yaml again.` };
  }
}

/** The first image missing or of another size than release.yaml says, as the payload's invalid detail; undefined when all are there. */
export async function sizeProblem(folder: string, release: ReleaseFile): Promise<string | undefined> {
  for (const image of release.images) {
    const found = await stat(join(folder, image.file)).catch(() => undefined);
    if (!found) return `${image.file} is missing from ${folder} (release.yaml lists it): copy the whole payload again.`;
    // A copy again would leave a folder (or a pipe, a device) where it is: it must go first.
    if (!found.isFile()) return `${image.file} in ${folder} is ${kindOf(found)}, where release.yaml lists an image file: move it away, then copy that file from the payload again.`;
    if (found.size !== image.size) {
      return `${image.file} is ${found.size} bytes, release.yaml says ${image.size}: the copy is incomplete or from another release; copy it again.`;
    }
  }
  return undefined;
}

export interface HashTarget {
  file: string;
  path: string;
}

/** What hash-worker.ts reports: each chunk hashed, then each file's digest or why it could not be read. */
export type HashMessage =
  | { type: "progress"; file: string; bytes: number }
  | { type: "file"; file: string; sha256: string; size: number }
  | { type: "error"; file: string; message: string };

interface ChecksumRun {
  /** The payload's invalid detail naming every mismatch, undefined when all images match; never rejects. */
  done: Promise<string | undefined>;
  cancel(): Promise<void>;
}

/**
 * sha256 of every image against release.yaml, streamed in a worker thread: a multi-GB payload is checked
 * near disk speed while the event loop keeps answering requests. The thread runs hash-worker.ts, carried
 * as a string so the installer stays one file. onProgress hears each chunk hashed.
 */
export function checkChecksums(folder: string, release: ReleaseFile, onProgress: (bytes: number, file: string) => void): ChecksumRun {
  const targets: HashTarget[] = release.images.map((image) => ({ file: image.file, path: join(folder, image.file) }));
  const worker = new Worker(HASH_WORKER_JS, { eval: true, workerData: { targets } });
  const mismatches: string[] = [];
  let remaining = targets.length;
  worker.on("message", (message: HashMessage) => {
    if (message.type === "progress") return onProgress(message.bytes, message.file);
    const expected = release.images.find((image) => image.file === message.file)!.sha256.toLowerCase();
    if (message.type === "error") mismatches.push(`${message.file} cannot be read: ${message.message}`);
    else if (message.sha256 !== expected) mismatches.push(`${message.file}: sha256 is ${message.sha256}, release.yaml says ${expected}`);
    if (--remaining === 0) void worker.terminate();
  });
  if (remaining === 0) void worker.terminate();
  const problem = (found: string[]) => (found.length > 0 ? `${found.join("; ")}. The file is damaged or from another release: copy it again.` : undefined);
  return {
    done: new Promise((resolve) => {
      worker.once("error", (err) => resolve(problem([`the checksum run failed: ${err.message}`])));
      worker.once("exit", () => resolve(problem(mismatches)));
    }),
    cancel: async () => {
      await worker.terminate();
    },
  };
}
