import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { openTls, peerSha256 } from "../core/cluster/tls-connect.ts";

/** The local installer as its state dir names it: where it listens, its install code, its certificate's SHA-256 (hex). */
export interface Pinned {
  url: URL;
  code: string;
  sha256: string;
}

/** The installer cannot be asked: no code or certificate in the state dir, not listening, another certificate, or the code refused. */
export class Unavailable extends Error {}

const CONNECT_MS = 5_000;

/** One GET over a connection whose certificate was checked before the install code was sent. */
export async function get(target: Pinned, path: string, accept: string): Promise<IncomingMessage> {
  const host = target.url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = Number(target.url.port || 443);
  const socket = await openTls({ host, port }, { timeoutMs: CONNECT_MS }).catch((err: Error) => {
    throw new Unavailable(`cannot reach the installer at ${target.url.origin}: ${err.message}`);
  });
  const presented = peerSha256(socket);
  if (presented !== target.sha256) {
    socket.destroy();
    throw new Unavailable(`${target.url.origin} presents another certificate (SHA-256 ${presented ?? "none"}) than the state dir's: it is not the installer of that state dir, so the install code was not sent`);
  }
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, headers: { authorization: `Bearer ${target.code}`, accept }, createConnection: () => socket }, resolve);
    req.on("error", (err) => reject(new Unavailable(`the installer at ${target.url.origin} did not answer: ${err.message}`)));
    req.end();
  });
}

export async function getJson<T>(target: Pinned, path: string): Promise<{ status: number; body: T }> {
  const res = await get(target, path, "application/json");
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new Unavailable(`${target.url.origin}${path} answered HTTP ${res.statusCode} without JSON: is it the installer?`);
  }
  if (res.statusCode === 401 || res.statusCode === 429) {
    throw new Unavailable(`the installer at ${target.url.origin} refused the state dir's install code (HTTP ${res.statusCode}): ${(body as { detail?: string }).detail}`);
  }
  return { status: res.statusCode ?? 0, body: body as T };
}

export interface SseMessage {
  id?: string;
  data: string;
}

/** An SSE reply's messages as they arrive (comment lines, the heartbeats, skipped); ends when the stream does. */
export async function* sseMessages(res: IncomingMessage): AsyncGenerator<SseMessage> {
  res.setEncoding("utf8");
  let buffer = "";
  for await (const chunk of res) {
    buffer += chunk as string;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: SseMessage = { data: "" };
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) message.id = line.slice(3).trim();
        else if (line.startsWith("data:")) message.data += (message.data ? "\n" : "") + line.slice(5).trimStart();
      }
      if (message.data) yield message;
    }
  }
}
