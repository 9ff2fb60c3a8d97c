import { Worker } from "node:worker_threads";

export interface HashTarget {
  file: string;
  path: string;
}

export type HashMessage =
  | { type: "progress"; file: string; bytes: number }
  | { type: "file"; file: string; sha256: string; size: number }
  | { type: "error"; file: string; message: string };

/** Inline, so the one-file bundle needs no second file; CommonJS, as workers evaluate it. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createReadStream } = require("node:fs");
const { createHash } = require("node:crypto");
(async () => {
  for (const target of workerData.targets) {
    const hash = createHash("sha256");
    let size = 0;
    try {
      for await (const chunk of createReadStream(target.path, { highWaterMark: 4 * 1024 * 1024 })) {
        hash.update(chunk);
        size += chunk.length;
        parentPort.postMessage({ type: "progress", file: target.file, bytes: chunk.length });
      }
      parentPort.postMessage({ type: "file", file: target.file, sha256: hash.digest("hex"), size });
    } catch (err) {
      parentPort.postMessage({ type: "error", file: target.file, message: err.message });
    }
  }
})();
`;

/**
 * sha256 of each file by streaming, in a worker thread: a multi-GB payload is
 * checked near disk speed while the event loop keeps answering requests.
 */
export function hashFiles(targets: HashTarget[], onMessage: (message: HashMessage) => void): { done: Promise<void>; cancel(): Promise<void> } {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { targets } });
  worker.on("message", onMessage);
  const done = new Promise<void>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", () => resolve());
  });
  let remaining = targets.length;
  worker.on("message", (message: HashMessage) => {
    if (message.type !== "progress" && --remaining === 0) void worker.terminate();
  });
  if (targets.length === 0) void worker.terminate();
  return {
    done,
    cancel: async () => {
      await worker.terminate();
    },
  };
}
