import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { request } from "node:https";
import type { TLSSocket } from "node:tls";
import { openTls, peerSha256 } from "../../core/cluster/tls-connect.ts";
import { formatFingerprint } from "./node-access.ts";

/** The installer presented another certificate than the plan pins: nothing was sent to it. */
export class PinMismatch extends Error {
  constructor(where: string, expected: string, seen: string | undefined) {
    super(
      `${where} presented a certificate whose SHA-256 is ${seen ? formatFingerprint(seen) : "unknown (none presented)"}, not the plan's ${formatFingerprint(expected)}: refused, nothing was sent (compare with the TLS SHA-256 line of its installer's banner)`,
    );
    this.name = "PinMismatch";
  }
}

/** No connection, or no complete answer in time. */
export class Unreachable extends Error {
  constructor(where: string, reason: string) {
    super(`${where} is unreachable: ${reason}`);
    this.name = "Unreachable";
  }
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Exchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

const MAX_ANSWER = 16 * 1024 * 1024;

const endpointOf = (url: URL) => ({ host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(url.port || 443) });

/** A TLS connection whose certificate is the pinned one, checked before a byte of a request (the install code) is written. */
async function openPinned(url: URL, pin: string, timeoutMs: number, signal?: AbortSignal): Promise<TLSSocket> {
  let socket: TLSSocket;
  try {
    socket = await openTls(endpointOf(url), { timeoutMs, signal });
  } catch (error) {
    signal?.throwIfAborted();
    throw new Unreachable(url.host, (error as Error).message);
  }
  const seen = peerSha256(socket);
  if (seen !== pin) {
    socket.destroy();
    throw new PinMismatch(url.host, pin, seen);
  }
  return socket;
}

function send(socket: TLSSocket, url: URL, exchange: Exchange, signal: AbortSignal): Promise<IncomingMessage> {
  const headers = { ...exchange.headers, ...(exchange.body === undefined ? {} : { "content-length": String(Buffer.byteLength(exchange.body)) }) };
  return new Promise((resolve, reject) => {
    const req = request({ ...endpointOf(url), method: exchange.method, path: exchange.path, headers, createConnection: () => socket, signal }, resolve);
    req.on("error", reject);
    req.end(exchange.body);
  });
}

/** One request on a connection of its own, its answer read whole; one deadline covers it all. */
export async function pinnedRequest(url: URL, pin: string, exchange: Exchange): Promise<Answer> {
  const deadline = AbortSignal.timeout(exchange.timeoutMs);
  const signal = exchange.signal ? AbortSignal.any([exchange.signal, deadline]) : deadline;
  const socket = await openPinned(url, pin, exchange.timeoutMs, exchange.signal);
  try {
    const res = await send(socket, url, exchange, signal);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ANSWER) throw new Error("the answer is over 16 MiB");
      chunks.push(chunk);
    }
    return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") };
  } catch (error) {
    exchange.signal?.throwIfAborted();
    throw new Unreachable(url.host, deadline.aborted ? `no complete answer within ${exchange.timeoutMs / 1000} s` : (error as Error).message);
  } finally {
    socket.destroy();
  }
}

/**
 * A long answer (an event stream) on a pinned connection, as it arrives. A connection silent for
 * `idleMs` (the installer sends a heartbeat every 15 s) counts as broken.
 */
export async function pinnedStream(url: URL, pin: string, exchange: Exchange & { idleMs: number }): Promise<IncomingMessage> {
  const socket = await openPinned(url, pin, exchange.timeoutMs, exchange.signal);
  const controller = new AbortController();
  const signal = exchange.signal ? AbortSignal.any([exchange.signal, controller.signal]) : controller.signal;
  socket.setTimeout(exchange.idleMs, () => socket.destroy(new Error(`nothing heard for ${exchange.idleMs / 1000} s`)));
  const timer = setTimeout(() => controller.abort(), exchange.timeoutMs);
  try {
    return await send(socket, url, exchange, signal);
  } catch (error) {
    socket.destroy();
    exchange.signal?.throwIfAborted();
    throw new Unreachable(url.host, (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}
