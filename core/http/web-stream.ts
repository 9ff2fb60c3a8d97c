import { Readable } from "node:stream";

/** How much of a stream waits for its reader: a client's pace holds the producer back beyond it. */
const QUEUE_BYTES = 64 * 1024;

/**
 * A Node stream as a web ReadableStream (a Hono body) that is read at its reader's pace. Node 18's
 * Readable.toWeb counts chunks, not bytes, against the stream's highWaterMark (16,384 chunks for a byte stream), so
 * it read a whole support bundle into memory whatever the client's pace; a byte-length strategy fixes that.
 */
export function webStreamOf(stream: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream, { strategy: new ByteLengthQueuingStrategy({ highWaterMark: QUEUE_BYTES }) }) as ReadableStream<Uint8Array>;
}
