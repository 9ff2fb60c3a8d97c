import type { Readable } from "node:stream";

/** The data of each Server-Sent Events message of a stream, in order; comments and other fields are skipped. */
export async function* readSse(stream: Readable): AsyncGenerator<string> {
  stream.setEncoding("utf8");
  let buffer = "";
  let data: string[] = [];
  for await (const chunk of stream as AsyncIterable<string>) {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (line === "") {
        if (data.length > 0) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(5).replace(/^ /, ""));
      }
    }
  }
}
