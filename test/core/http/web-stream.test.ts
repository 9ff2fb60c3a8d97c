import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { test } from "node:test";
import { webStreamOf } from "../../../core/http/web-stream.ts";

const CHUNK = 16 * 1024;

test("a stream handed to the web is read at its reader's pace: one chunk read, at most its queue's 64 KiB more made (Node 18's default strategy made all of it)", async () => {
  let made = 0;
  const source = new Readable({
    read() {
      made += 1;
      this.push(Buffer.alloc(CHUNK));
      if (made === 1000) this.push(null);
    },
  });
  const reader = webStreamOf(source).getReader();
  assert.equal((await reader.read()).value?.byteLength, CHUNK);
  // Whatever the source would make unasked, it has made once it waits for its reader: its 'pause'.
  for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(made <= 64 / 16 + 3, `made ${made} chunks of 16 KiB for one read`);
  await reader.cancel();
  assert.ok(source.destroyed, "a reader that leaves ends the stream");
});
