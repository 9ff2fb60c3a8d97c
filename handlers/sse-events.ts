import type { SSEStreamingApi } from "hono/streaming";
import type { InstallEvent } from "../core/attempts/events.ts";
import { printableJson } from "../core/common/printable.ts";
import { STOPPING_COMMENT } from "../core/http/sse.ts";

const HEARTBEAT_MS = 15_000;

/** The next batch, or undefined when HEARTBEAT_MS pass first (the batch stays pending). */
function within<T>(next: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const beat = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([next, beat]).finally(() => clearTimeout(timer));
}

/**
 * Each batch of events as SSE frames (id = seq) in one write: a burst of firstboot output to many
 * subscribers costs one TLS write each, not one per line. A comment line while nothing happens. Once `stopping` is
 * aborted (the installer stops; the batches end then too) the last line is a comment saying so, and the stream ends.
 */
export async function writeEvents(stream: SSEStreamingApi, batches: AsyncIterable<InstallEvent[]>, stopping?: AbortSignal): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  for (;;) {
    const next = iterator.next();
    let result: IteratorResult<InstallEvent[]> | undefined;
    while (!(result = await within(next, HEARTBEAT_MS))) {
      if (!stream.aborted) await stream.write(": heartbeat\n\n");
    }
    if (result.done) {
      if (stopping?.aborted && !stream.aborted) await stream.write(`: ${STOPPING_COMMENT}\n\n`);
      return;
    }
    await stream.write(result.value.map((event) => `id: ${event.seq}\ndata: ${printableJson(event)}\n\n`).join(""));
  }
}
