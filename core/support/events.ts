import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { BundleRedactor } from "./secrets.ts";

/** An attempt's event file as the bundle takes it: its complete lines up to `end`, so a running attempt's later lines do not change its size. */
export interface EventsFile {
  attempt: number;
  path: string;
  /** The byte after its last complete line when it was measured. */
  end: number;
  lines: number;
  /** Its lines' bytes once redacted. */
  bytes: number;
}

/** Each complete line of the file's first `end` bytes, newline included; never more than a chunk and a line in memory. */
async function* linesOf(path: string, end: number): AsyncGenerator<Buffer> {
  if (end === 0) return;
  let rest: Buffer | undefined;
  for await (const chunk of createReadStream(path, { start: 0, end: end - 1, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    const data: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
    let from = 0;
    for (let at = data.indexOf(10, from); at >= 0; at = data.indexOf(10, from)) {
      yield data.subarray(from, at + 1);
      from = at + 1;
    }
    rest = from < data.length ? data.subarray(from) : undefined;
  }
}

const redactedLine = (line: Buffer, redactor: BundleRedactor): Buffer => {
  const text = line.toString("utf8");
  const redacted = redactor.text(text);
  return redacted === text ? line : Buffer.from(redacted, "utf8");
};

export async function measureEvents(attempt: number, path: string, redactor: BundleRedactor): Promise<EventsFile | undefined> {
  const size = await stat(path).then((s) => s.size, () => undefined);
  if (size === undefined) return undefined;
  let end = 0;
  let lines = 0;
  let bytes = 0;
  for await (const line of linesOf(path, size)) {
    end += line.length;
    lines += 1;
    bytes += redactedLine(line, redactor).length;
  }
  return { attempt, path, end, lines, bytes };
}

/** The fewest leading lines whose redacted bytes reach `atLeast`: what to cut from the front of a file. */
export async function leadingLines(file: EventsFile, atLeast: number, redactor: BundleRedactor): Promise<{ lines: number; bytes: number }> {
  let lines = 0;
  let bytes = 0;
  for await (const line of linesOf(file.path, file.end)) {
    if (bytes >= atLeast) break;
    lines += 1;
    bytes += redactedLine(line, redactor).length;
  }
  return { lines, bytes };
}

/** The file's redacted lines after the first `skip`, in chunks of about 64 KB. */
export async function* redactedEvents(file: EventsFile, skip: number, redactor: BundleRedactor): AsyncGenerator<Buffer> {
  let seen = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  for await (const line of linesOf(file.path, file.end)) {
    if (seen++ < skip) continue;
    const out = redactedLine(line, redactor);
    batch.push(out);
    batched += out.length;
    if (batched >= 64 * 1024) {
      yield Buffer.concat(batch);
      batch = [];
      batched = 0;
    }
  }
  if (batch.length > 0) yield Buffer.concat(batch);
}
