import { Worker } from "node:worker_threads";
import { HASH_WORKER_JS } from "../../build/worker-assets.ts";

export interface HashTarget {
  file: string;
  path: string;
}

export type HashMessage =
  | { type: "progress"; file: string; bytes: number }
  | { type: "file"; file: string; sha256: string; size: number }
  | { type: "error"; file: string; message: string };

/**
 * sha256 of each file by streaming, in a worker thread: a multi-GB payload is
 * checked near disk speed while the event loop keeps answering requests.
 * The thread runs hash-worker.ts, bundled into a string so the installer stays one file.
 */
export function hashFiles(targets: HashTarget[], onMessage: (message: HashMessage) => void): { done: Promise<void>; cancel(): Promise<void> } {
  const worker = new Worker(HASH_WORKER_JS, { eval: true, workerData: { targets } });
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
