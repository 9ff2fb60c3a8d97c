import { StringDecoder } from "node:string_decoder";
import { createReadStream } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import { z } from "zod";
import { MAX_EVENT_LINE } from "./events.ts";

/** The events kept of each attempt's file for the summary: its last ones. */
const LAST_EVENTS = 12;
/** A file the summary parses is no bigger than this (events are read line by line). */
const MAX_JSON = 8 * 1024 * 1024;
/** A bundle is at most 10 MB (SPEC §11); what unpacks to more than this is none an installer made (a gzip bomb). */
const MAX_UNPACKED = 512 * 1024 * 1024;
/** An installer's bundle holds about ten files and four an attempt: more than this is none it made. */
const MAX_FILES = 50_000;

// What the summary reads of a bundle's JSON, each field taken only when it has the type an installer writes: a bundle
// is text from outside (another version's, one trimmed by hand, a crafted one), and a field of another type is absent.
const text = z.string().optional().catch(undefined);
const ManifestRead = z.object({
  hostname: text,
  installer: text,
  node: text,
  madeAt: text,
  madeBy: text,
  phase: text,
  service: text,
  leftOut: z
    .array(z.object({ path: z.string(), events: z.object({ leftOut: z.number(), of: z.number() }).optional().catch(undefined) }).catch({ path: "?" }))
    .catch([]),
  redaction: z.object({ unread: z.array(z.string()).optional().catch(undefined) }).optional().catch(undefined),
});
const StatusRead = z.object({ phase: text, hostname: text, mode: text, version: text });
const VerdictRead = z.object({ outcome: text, code: text, step: text, message: text });
const ReportRead = z.object({ kind: text, state: text, step: text, firstbootTail: z.array(z.string()).optional().catch(undefined) });

/** What a bundle says, enough for a person's first minute with it. */
export interface BundleContents {
  manifest?: z.infer<typeof ManifestRead>;
  status?: z.infer<typeof StatusRead>;
  attempts: Array<{ attempt: number; verdict?: z.infer<typeof VerdictRead>; report?: z.infer<typeof ReportRead>; lastEvents: string[] }>;
}

/** A JSON file of the bundle as `schema` reads it; undefined when it is no JSON object. */
function readJson<T>(text: string, schema: z.ZodType<T>): T | undefined {
  const parsed = schema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Reads a .tar.gz bundle once, as a stream: the JSON it needs, and the last events of each attempt. One that is no
 * gzip, unpacks to more than `maxUnpackedBytes` or has no manifest.json is refused: no installer made it.
 */
export async function readBundle(path: string, maxUnpackedBytes = MAX_UNPACKED, options: { maxFiles?: number; signal?: AbortSignal } = {}): Promise<BundleContents> {
  const contents: BundleContents = { attempts: [] };
  const byNumber = new Map<number, BundleContents["attempts"][number]>();
  const attempt = (n: number) => {
    let found = byNumber.get(n);
    if (!found) byNumber.set(n, (found = { attempt: n, lastEvents: [] }));
    return found;
  };
  const maxFiles = options.maxFiles ?? MAX_FILES;
  let entries = 0;
  const reader = extract();
  reader.on("entry", (header, stream, next) => {
    // A bundle torn down mid-entry (over the cap, cut short) errors this entry too: the pipeline reports why.
    stream.on("error", () => undefined);
    if (++entries > maxFiles) return void reader.destroy(new Error(`it holds more than ${maxFiles} files, which no installer's bundle does`));
    const name = header.name.split("/").slice(1).join("/");
    const match = /^attempts\/(\d+)\/(verdict\.json|report\.json|events\.ndjson)$/.exec(name);
    const wanted = name === "manifest.json" || name === "status.json" || match;
    const events = match?.[2] === "events.ndjson";
    if (!wanted || (!events && (header.size ?? 0) > MAX_JSON)) {
      stream.on("end", next).resume();
      return;
    }
    const chunks: Buffer[] = [];
    // Each piece split once, the line it ends kept to MAX_EVENT_LINE: a longer one is no event (the installer cuts
    // its lines to 16 KiB) and is skipped to its end, so a file of one endless line is read in linear time.
    const decoder = new StringDecoder("utf8");
    let rest = "";
    let skipping = false;
    const last: string[] = [];
    stream.on("data", (chunk: Buffer) => {
      if (!events) return void chunks.push(chunk);
      const text = decoder.write(chunk);
      const end = text.lastIndexOf("\n");
      if (end < 0) {
        if (!skipping) rest += text;
      } else {
        const lines = skipping ? text.slice(text.indexOf("\n") + 1, end).split("\n") : (rest + text.slice(0, end)).split("\n");
        skipping = false;
        rest = text.slice(end + 1);
        last.push(...lines.filter((line) => line.length > 0));
        last.splice(0, Math.max(0, last.length - LAST_EVENTS));
      }
      if (rest.length > MAX_EVENT_LINE) {
        rest = "";
        skipping = true;
      }
    });
    stream.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        if (name === "manifest.json") contents.manifest = readJson(text, ManifestRead);
        else if (name === "status.json") contents.status = readJson(text, StatusRead);
        else if (match?.[2] === "verdict.json") attempt(Number(match[1])).verdict = readJson(text, VerdictRead);
        else if (match?.[2] === "report.json") attempt(Number(match[1])).report = readJson(text, ReportRead);
        else if (match && events) attempt(Number(match[1])).lastEvents = last;
      } catch {
        // A file that does not parse is simply not summarised; the person still has the bundle.
      }
      next();
    });
  });
  let unpacked = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      unpacked += chunk.length;
      if (unpacked <= maxUnpackedBytes) return done(null, chunk);
      // Once: the pipeline tears down on it; what gunzip hands on meanwhile is dropped.
      if (!this.destroyed) this.destroy(new Error(`it unpacks to over ${maxUnpackedBytes / 1024 / 1024} MiB, which no installer's bundle does`));
      done();
    },
  });
  await pipeline(createReadStream(path), createGunzip(), capped, reader, ...(options.signal ? [{ signal: options.signal }] : []));
  if (!contents.manifest) throw new Error("it holds no manifest.json (a JSON object), which every installer's bundle does");
  contents.attempts = [...byNumber.values()].sort((a, b) => a.attempt - b.attempt);
  return contents;
}
