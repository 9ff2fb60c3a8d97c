import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { HashMessage, HashTarget } from "./verify.ts";

/**
 * The worker thread's program (build/worker.ts bundles it; checkChecksums in verify.ts starts it): streams each
 * target through sha256 and reports its progress, then its digest or why it could not be read.
 */
async function hashTargets(targets: HashTarget[], post: (message: HashMessage) => void): Promise<void> {
  for (const target of targets) {
    const hash = createHash("sha256");
    let size = 0;
    try {
      for await (const chunk of createReadStream(target.path, { highWaterMark: 4 * 1024 * 1024 }) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
        post({ type: "progress", file: target.file, bytes: chunk.length });
      }
      post({ type: "file", file: target.file, sha256: hash.digest("hex"), size });
    } catch (err) {
      post({ type: "error", file: target.file, message: (err as Error).message });
    }
  }
}

void hashTargets((workerData as { targets: HashTarget[] }).targets, (message) => parentPort!.postMessage(message));
