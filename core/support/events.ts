import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { deflateRawSync } from "node:zlib";
import { visible } from "../common/printable.ts";
import { privateKeyLines } from "../secrets/index.ts";
import { marker, type BundleRedactor } from "./secrets.ts";
import { namingFile } from "../fs/storage-error.ts";

/** An attempt's event file as the bundle takes it: its complete lines up to `end`, so a running attempt's later lines do not change its size. */
export interface EventsFile {
  attempt: number;
  path: string;
  /** The byte after its last complete line when it was measured. */
  end: number;
  lines: number;
  /** Its lines' bytes once redacted. */
  bytes: number;
  /** What they take compressed: each 256 KB deflated alone, a little more than the bundle's one stream takes. */
  packed: number;
  /** Lines over MAX_EVENT_LINE, left out, and their bytes. */
  overlong: { lines: number; bytes: number };
}

const PACK_BATCH = 256 * 1024;

/** The bytes `text` takes deflated alone: an estimate of what it takes in the .tar.gz, never under it by much. */
export function packedBytes(data: Buffer): number {
  return deflateRawSync(data).length;
}

/** Longer than any event line an installer writes (its messages are cut to 16 KiB): a longer one is damage, not an event. */
export const MAX_EVENT_LINE = 1024 * 1024;
const READ_CHUNK = 256 * 1024;

/**
 * Each complete line of the file's first `end` bytes, newline included; a line over MAX_EVENT_LINE as its length
 * alone, skipped to its end unread (8 MB of a crash's NULs gathered whole were copied again at every chunk). Never more
 * than a chunk and a line in memory.
 */
async function* linesOf(path: string, end: number): AsyncGenerator<Buffer | number> {
  // Opened again for each pass, not held from the measure on: a node may have thousands of attempts. Gone since (an
  // attempt discarded) or a link, a named pipe or a folder put in its place, it has no lines (redactedEvents makes up
  // the rest, and says so): a read of a pipe or a folder by position fails (ESPIPE, EISDIR), which failed the bundle.
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(() => undefined);
  if (!file) return;
  try {
    if (!(await file.stat()).isFile()) return;
    yield* linesOfFile(file, end);
  } catch (err) {
    // Read whole when it was measured, it fails now (a disk's EIO): said with its name, which a read's error lacks.
    throw namingFile(path, err);
  } finally {
    await file.close();
  }
}

async function* linesOfFile(file: FileHandle, end: number): AsyncGenerator<Buffer | number> {
  if (end === 0) return;
  let rest: Buffer | undefined;
  let skipped = 0;
  // Read by position: a pass may stop early (leadingLines), and a stream's early end was an error.
  for (let at = 0; at < end; ) {
    const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - at));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, at);
    // Cut shorter since it was measured: its lines end here (redactedEvents makes up the rest).
    if (bytesRead === 0) return;
    at += bytesRead;
    let data: Buffer = buffer.subarray(0, bytesRead);
    if (skipped > 0) {
      const newline = data.indexOf(10);
      if (newline < 0) {
        skipped += data.length;
        continue;
      }
      yield skipped + newline + 1;
      skipped = 0;
      data = data.subarray(newline + 1);
    } else if (rest) data = Buffer.concat([rest, data]);
    rest = undefined;
    let from = 0;
    for (let newline = data.indexOf(10, from); newline >= 0; newline = data.indexOf(10, from)) {
      yield newline + 1 - from > MAX_EVENT_LINE ? newline + 1 - from : data.subarray(from, newline + 1);
      from = newline + 1;
    }
    if (data.length - from > MAX_EVENT_LINE) skipped = data.length - from;
    else if (from < data.length) rest = data.subarray(from);
  }
}

/** An event line's message, when the line is an event with one. */
function messageOf(text: string): { event: Record<string, unknown>; message: string } | undefined {
  try {
    const event = JSON.parse(text) as unknown;
    if (typeof event !== "object" || event === null || Array.isArray(event)) return undefined;
    const { message } = event as { message?: unknown };
    return typeof message === "string" ? { event: event as Record<string, unknown>, message } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An events file's lines as the bundle holds them, one after another from the first: each redacted; a private key
 * printed a line an event (an event whose message ends in its BEGIN line) has its body lines' messages cut too, up
 * to its END line or the first line that is no body line (core/secrets' privateKeyLines: the service's own events
 * have them redacted already; an older installer's may not); and any control character a damaged line holds written
 * out (`\u001b`), as the service writes its events.
 */
function eventLines(redactor: BundleRedactor): (line: Buffer) => Buffer {
  const key = privateKeyLines();
  return (line) => {
    const text = line.toString("utf8");
    let out = redactor.text(text);
    if (key.open || text.includes("PRIVATE KEY-----")) {
      if (key.ownLine(messageOf(text)?.message)) {
        // From the redacted line: the event's other fields keep their redaction.
        const redacted = messageOf(out);
        out = redacted ? `${JSON.stringify({ ...redacted.event, message: marker("private key") })}\n` : out.replace(/[A-Za-z0-9+/=]{16,}/g, marker("private key"));
      }
    }
    const body = out.endsWith("\n") ? out.slice(0, -1) : out;
    out = `${visible(body)}${body === out ? "" : "\n"}`;
    return out === text ? line : Buffer.from(out, "utf8");
  };
}

/** The file at `path` measured, open; undefined when it is not there or no file; an error when it cannot be read. */
export async function measureEvents(attempt: number, path: string, redactor: BundleRedactor): Promise<EventsFile | undefined> {
  // Not through a link put in its place between the bundle's look and this open (see A_LINK). One this user may not
  // read is an error: the bundle says so.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) =>
    err.code === "ENOENT" || err.code === "ELOOP" || err.code === "ENXIO" ? undefined : Promise.reject(err),
  );
  if (!handle) return undefined;
  try {
    const stats = await handle.stat();
    return stats.isFile() ? await measured(attempt, path, handle, stats.size, redactor) : undefined;
  } finally {
    await handle.close();
  }
}

async function measured(attempt: number, path: string, handle: FileHandle, size: number, redactor: BundleRedactor): Promise<EventsFile> {
  let end = 0;
  let lines = 0;
  let bytes = 0;
  let packed = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  const pack = () => {
    packed += packedBytes(Buffer.concat(batch));
    batch = [];
    batched = 0;
  };
  const overlong = { lines: 0, bytes: 0 };
  const redacted = eventLines(redactor);
  for await (const line of linesOfFile(handle, size)) {
    if (typeof line === "number") {
      end += line;
      overlong.lines += 1;
      overlong.bytes += line;
      continue;
    }
    const out = redacted(line);
    end += line.length;
    lines += 1;
    bytes += out.length;
    batch.push(out);
    batched += out.length;
    if (batched >= PACK_BATCH) pack();
  }
  if (batched > 0) pack();
  return { attempt, path, end, lines, bytes, packed, overlong };
}

/**
 * The fewest leading lines, in whole batches of `measureEvents`, whose compressed bytes reach `atLeast`: what to
 * cut from the front of a file. Batched alike, the rest of the file takes exactly `packed` minus theirs.
 */
export async function leadingLines(file: EventsFile, atLeast: number, redactor: BundleRedactor): Promise<{ lines: number; bytes: number; packed: number }> {
  let lines = 0;
  let bytes = 0;
  let packed = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  const redacted = eventLines(redactor);
  for await (const line of linesOf(file.path, file.end)) {
    if (typeof line === "number") continue;
    const out = redacted(line);
    lines += 1;
    bytes += out.length;
    batch.push(out);
    batched += out.length;
    if (batched >= PACK_BATCH) {
      packed += packedBytes(Buffer.concat(batch));
      if (packed >= atLeast) return { lines, bytes, packed };
      batch = [];
      batched = 0;
    }
  }
  return { lines: file.lines, bytes: file.bytes, packed: file.packed };
}

/**
 * The file's redacted lines after the first `skip` ones, in chunks of about 64 KB: exactly `bytes`, as measured. A file
 * cut shorter or removed meanwhile (an append a full disk undid, an attempt discarded) ends in blank lines to that
 * length, and one changed under it is cut at it; either is told to `changed` with the bytes that are not the file's.
 */
export async function* redactedEvents(file: EventsFile, skip: { lines: number; bytes: number }, redactor: BundleRedactor, changed: (how: "shorter" | "longer", bytes: number) => void): AsyncGenerator<Buffer> {
  let seen = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  let left = file.bytes - skip.bytes;
  const redacted = eventLines(redactor);
  const flush = () => {
    const out = Buffer.concat(batch).subarray(0, left);
    left -= out.length;
    batch = [];
    batched = 0;
    return out;
  };
  for await (const line of linesOf(file.path, file.end)) {
    if (typeof line === "number") continue;
    // Every line goes through: a key's BEGIN line among the skipped ones still marks the lines after it.
    const out = redacted(line);
    if (seen++ < skip.lines) continue;
    batch.push(out);
    batched += out.length;
    if (batched >= 64 * 1024) {
      if (batched > left) changed("longer", batched - left);
      yield flush();
    }
  }
  if (batched > left) changed("longer", batched - left);
  if (batch.length > 0) yield flush();
  if (left > 0) {
    changed("shorter", left);
    yield Buffer.alloc(left, "\n");
  }
}
