/** The one Server-Sent Events reader: the CLI's `status --follow` and the fleet follow an attempt's events with it. */
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { cutOff, HttpClientError, type HttpRequest, type Parser, openStream, parseJson, releaseStream } from "./client.ts";
import { STOPPING_COMMENT } from "./stopping.ts";

export interface SseMessage {
  id?: string;
  data: string;
}

export interface SseLimits {
  /** The longest line (without its end). */
  maxLine: number;
  /** The most data one message may carry. */
  maxEvent: number;
}

export { STOPPING_COMMENT };

/** An install event is one line of JSON, a firstboot line in it at most 16 KiB before escaping. */
export const SSE_LIMITS: SseLimits = { maxLine: 1024 * 1024, maxEvent: 1024 * 1024 };

/**
 * A stream's messages as they arrive, each its data lines joined: comment lines (the heartbeats; each given to
 * `comment`, without its colon), other fields and a message cut off at the end are skipped. Lines end in LF, CRLF or
 * CR. Over a limit is a too-large error.
 */
export async function* sseMessages(stream: Readable, limits: SseLimits, where: string, comment?: (text: string) => void): AsyncGenerator<SseMessage> {
  const decoder = new StringDecoder("utf8");
  let buffer = "";
  let message: { id?: string; data: string[]; size: number } = { data: [], size: 0 };
  // A CR at a chunk's end may be the first half of a CRLF: the LF that follows ends no second line.
  let skipLf = false;
  // Not destroyed when the reader stops: its caller decides (a stream ended at its final event may keep its connection).
  for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>) {
    buffer += typeof chunk === "string" ? chunk : decoder.write(chunk);
    if (skipLf && buffer.startsWith("\n")) buffer = buffer.slice(1);
    skipLf = false;
    let end: number;
    while ((end = buffer.search(/[\r\n]/)) >= 0) {
      if (end === buffer.length - 1 && buffer[end] === "\r") skipLf = true;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line.length > limits.maxLine) throw new HttpClientError("too-large", where, `an event stream line is over ${limits.maxLine} characters`);
      if (line === "") {
        if (message.data.length > 0) yield { ...(message.id !== undefined ? { id: message.id } : {}), data: message.data.join("\n") };
        message = { data: [], size: 0 };
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (colon === 0) comment?.(value);
      else if (field === "id") message.id = value;
      else if (field === "data") {
        message.size += value.length + 1;
        if (message.size > limits.maxEvent) throw new HttpClientError("too-large", where, `an event is over ${limits.maxEvent} characters`);
        message.data.push(value);
      }
    }
    if (buffer.length > limits.maxLine) throw new HttpClientError("too-large", where, `an event stream line is over ${limits.maxLine} characters`);
  }
}

interface EventsRequest<T> extends Omit<HttpRequest, "method" | "body" | "maxBytes"> {
  /** A connection silent this long is broken (the installer sends a heartbeat every 15 s). */
  idleMs: number;
  /** Resume after this event: sent as Last-Event-ID. */
  lastEventId?: string;
  /** Each message's data is one JSON value of this shape. */
  schema: Parser<T>;
  /** The stream's last event: reading ends with it, whether or not the server closes the stream. */
  isFinal?: (event: T) => boolean;
  limits?: SseLimits;
  /** The stream ended (before its final event) with the installer's word that it stops: it is worth following again. */
  onStopping?: () => void;
}

/** The most of a refusal's body (a problem+json) read. */
const MAX_REFUSAL = 64 * 1024;

/**
 * One connection's events, each parsed with `schema`, until the final event or the end of the stream (then call
 * again with the last id to resume). Another status than 200 is a status error; a broken stream a broken one.
 */
export async function* readEvents<T>(req: EventsRequest<T>): AsyncGenerator<{ id?: string; event: T }> {
  const where = new URL(req.url).host;
  const headers = { ...req.headers, accept: "text/event-stream", ...(req.lastEventId !== undefined ? { "last-event-id": req.lastEventId } : {}) };
  const res = await openStream({ ...req, headers, maxBytes: MAX_REFUSAL });
  let final = false;
  let stopping = false;
  try {
    for await (const message of sseMessages(res, req.limits ?? SSE_LIMITS, where, (text) => (stopping = text === STOPPING_COMMENT))) {
      // In the event's own words, not its stream's "HTTP 200"; its id only as the installer's ids are (it is the node's text).
      const named = message.id !== undefined && /^\d{1,12}$/.test(message.id) ? `event ${message.id}` : "an event";
      const event = parseJson(message.data, req.schema, where, { what: `${named} of the stream` });
      final = req.isFinal?.(event) ?? false;
      yield { ...(message.id !== undefined ? { id: message.id } : {}), event };
      if (final) return;
      stopping = false;
    }
    if (stopping) req.onStopping?.();
  } catch (error) {
    req.signal?.throwIfAborted();
    if (error instanceof HttpClientError) throw error;
    throw new HttpClientError("broken", where, cutOff(error) ? "the connection closed before the stream ended" : (error as Error).message);
  } finally {
    if (final) releaseStream(res);
    else res.destroy();
  }
}
