import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { readSse } from "../../../cli/fleet/sse.ts";

async function messages(chunks: string[]): Promise<string[]> {
  const found: string[] = [];
  for await (const data of readSse(Readable.from(chunks.map((c) => Buffer.from(c))))) found.push(data);
  return found;
}

describe("fleet: reading an event stream", () => {
  it("messages split anywhere, comments skipped, CRLF too, a message cut off at the end dropped", async () => {
    const stream = ': heartbeat\n\nid: 1\ndata: {"seq":1}\n\nid: 2\r\ndata: {"seq":2}\r\n\r\nid: 3\ndata: {"se';
    for (const size of [1, 3, 7, stream.length]) {
      const chunks = stream.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      assert.deepEqual(await messages(chunks), ['{"seq":1}', '{"seq":2}'], `chunks of ${size}`);
    }
  });

  it("a message of several data lines is one message", async () => {
    assert.deepEqual(await messages(["data: a\ndata: b\n\n"]), ["a\nb"]);
  });
});
