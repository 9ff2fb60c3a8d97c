import { request } from "node:https";
import type { TLSSocket } from "node:tls";
import { type Endpoint, seconds } from "./endpoint.ts";
import type { Deadline } from "./tls-connect.ts";

export interface Answer {
  status: number;
  body: string;
}

const MAX_BODY = 64 * 1024;

/**
 * One request over a socket already open and verified: nothing opens a connection the pin did not check.
 * One deadline covers the whole exchange, the answer is at most 64 KiB; rejects with the reason as its message.
 */
export function requestOver(socket: TLSSocket, endpoint: Endpoint, method: "GET" | "POST", path: string, body: string | undefined, { timeoutMs, signal }: Deadline): Promise<Answer> {
  const deadline = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | undefined, answer?: Answer) => {
      if (settled) return;
      settled = true;
      if (error) {
        req.destroy();
        reject(new Error(deadline.aborted ? `no complete answer within ${seconds(timeoutMs)}` : error.message));
      } else resolve(answer!);
    };
    const headers = { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }) };
    const req = request(
      { host: endpoint.host, port: endpoint.port, method, path, headers, createConnection: () => socket, signal: signal ? AbortSignal.any([signal, deadline]) : deadline },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY) return settle(new Error("the answer is over 64 KiB"));
          chunks.push(chunk);
        });
        res.on("end", () => settle(undefined, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", settle);
        res.on("close", () => settle(new Error("the connection closed before the answer was complete")));
      },
    );
    req.on("error", settle);
    req.end(body);
  });
}
