import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { connect, type TLSSocket } from "node:tls";
import { type Endpoint, seconds } from "./endpoint.ts";

export interface Deadline {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * A TLS connection, resolved once the handshake is done and before a byte of application data is written.
 * The certificate is not verified against a CA: the cloud's is self-signed, and trust comes from its pinned SHA-256.
 * Rejects with the reason as its message.
 */
export function openTls({ host, port }: Endpoint, { timeoutMs, signal }: Deadline): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    let socket: TLSSocket | undefined;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      if (!error) return resolve(socket!);
      socket?.destroy();
      reject(error);
    };
    const timer = setTimeout(() => settle(new Error(`no TLS handshake within ${seconds(timeoutMs)}`)), timeoutMs);
    const cancel = () => settle(new Error("cancelled"));
    signal?.addEventListener("abort", cancel, { once: true });
    if (signal?.aborted) return cancel();
    try {
      socket = connect({ host, port, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    } catch (error) {
      return settle(error as Error);
    }
    // Kept after the handshake too: a socket error with no listener would crash the process.
    socket.on("error", (error) => settle(error));
    socket.once("secureConnect", () => settle());
  });
}

/** SHA-256 of the peer's certificate (DER), lowercase hex; undefined when it presented none. */
export function peerSha256(socket: TLSSocket): string | undefined {
  const raw = socket.getPeerCertificate().raw as Buffer | undefined;
  return raw ? createHash("sha256").update(raw).digest("hex") : undefined;
}

/** The SHA-256 of the certificate an https URL presents (the init side records its cloud API's). Rejects with the reason. */
export async function certificateSha256(url: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:") throw new Error(`${parsed.protocol}// has no certificate`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  const socket = await openTls({ host, port: Number(parsed.port || 443) }, { timeoutMs, signal });
  const sha256 = peerSha256(socket);
  socket.destroy();
  if (!sha256) throw new Error(`${parsed.host} presented no certificate`);
  return sha256;
}
