/**
 * The one HTTP(S) client for talking to other machines: the CLI and the fleet to installers, the join check to
 * a cluster, the readiness wait to the cloud. A connection is checked (pin, CA or none) on its handshake, before a
 * byte of a request is written, and then carries the next requests to its origin under the same trust while it is
 * idle for less than a few seconds (`connections.ts`); an event stream keeps its connection to itself. A request
 * runs under one deadline and reads at most `maxBytes` of answer. Only a GET or HEAD that a reused connection
 * failed before any answer is sent again, once, on a new connection: anything else may have reached the server.
 * Every failure is an HttpClientError whose kind callers turn into their own words.
 */
import { createHash } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, maxHeaderSize } from "node:http";
import { request as httpsRequest } from "node:https";
import { dirname } from "node:path";
import { connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect, createSecureContext, type SecureContext, type TLSSocket } from "node:tls";
import { capText, limitText } from "../common/cut-text.ts";
import { printable } from "../common/printable.ts";
import { ipFamily } from "../config/net.ts";
import { NotWrittenError } from "../fs/storage-error.ts";
import { openTempFile, syncFolder } from "../fs/write-private-file.ts";
import { tempPathOf } from "../state/layout.ts";
import { type Checked, type IdleConnections, createIdleConnections } from "./connections.ts";

/**
 * How an https:// server is trusted (an http:// URL is plain, for a loopback readiness URL or a test cloud):
 * - pin: its certificate's SHA-256 (lowercase hex) must be this one; a self-signed installer or cloud.
 * - ca: its chain and name verified against `ca` (PEM), or the system's CAs when absent.
 * - any: not verified (the cloud's readiness endpoint, self-signed on a fresh node); the answer names the fingerprint.
 */
type Trust = { pin: string } | { ca?: string } | "any";

export interface HttpRequest {
  url: URL | string;
  trust: Trust;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** One deadline for the whole exchange: connection, handshake, headers and body. */
  timeoutMs: number;
  /** The most of the answer's body read; more is a too-large error. */
  maxBytes: number;
  /** The caller's: when it aborts, the request rejects with its reason (not an HttpClientError). */
  signal?: AbortSignal;
  /** Where connections wait between requests; default the process's own (IDLE_MS, MAX_IDLE). */
  connections?: IdleConnections;
}

/** Shorter than the 5 s an idle connection stays open on a Node server (an installer); a server that says less is believed. */
const IDLE_MS = 4_000;
/** Whatever the number of nodes: far below the 1,024 files a process may open by default. */
const MAX_IDLE = 64;
const shared = createIdleConnections({ idleMs: IDLE_MS, max: MAX_IDLE });

export interface Answer<T = string> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
  /** SHA-256 of the certificate the server presented (https only). */
  certificate?: string;
}

/**
 * unreachable: no connection (refused, DNS, TLS handshake failed or not done in time); nothing was sent.
 * tls-mismatch: connected, but not the pinned certificate or not one the CA vouches for; nothing was sent.
 * timeout / broken: connected and sent, but no complete answer in time / the connection failed.
 * malformed: connected and sent, and the answer is not HTTP as Node's parser reads it (its HPE_* code said): a
 * header section over its limit, two Content-Lengths, a broken chunked body… No installer answers so.
 * too-large: the answer is over the cap. status: another status than the caller expects (the answer is kept).
 * not-json / schema: the answer's body is not JSON / not of the schema the caller gave.
 */
type HttpErrorKind = "unreachable" | "tls-mismatch" | "timeout" | "broken" | "malformed" | "too-large" | "status" | "not-json" | "schema";

export class HttpClientError extends Error {
  readonly kind: HttpErrorKind;
  /** host:port as the URL names it. */
  readonly where: string;
  /** tls-mismatch: SHA-256 of the certificate presented, if any. */
  readonly presented?: string;
  /** status, not-json, schema: the answer as read. */
  readonly answer?: Answer;
  constructor(kind: HttpErrorKind, where: string, message: string, extra: { presented?: string; answer?: Answer } = {}) {
    super(message);
    this.name = "HttpClientError";
    this.kind = kind;
    this.where = where;
    this.presented = extra.presented;
    this.answer = extra.answer;
  }
}

/**
 * No connection for want of a file on this machine (EMFILE: its open-files limit; ENFILE: the system's): not the
 * server's fault, and nothing was sent. Not an HttpClientError: no node is unreachable for it.
 */
export class OutOfFilesError extends Error {
  readonly code: "EMFILE" | "ENFILE";
  constructor(where: string, code: "EMFILE" | "ENFILE") {
    super(`no connection to ${where}: this machine has too many open files (${code})`);
    this.name = "OutOfFilesError";
    this.code = code;
  }
}

/** The request never left: no connection, or a certificate refused on its handshake (unreachable, tls-mismatch). */
export const nothingSent = (error: unknown): boolean => error instanceof HttpClientError && (error.kind === "unreachable" || error.kind === "tls-mismatch");

/** The answers no installer gives: of the wrong shape, over a cap, or not well-formed HTTP. Asking again hears them again. */
const WRONG_ANSWERS: ReadonlySet<HttpErrorKind> = new Set(["not-json", "schema", "too-large", "malformed"]);

export const wrongAnswer = (error: unknown): error is HttpClientError => error instanceof HttpClientError && WRONG_ANSWERS.has(error.kind);

/** What parses an answer: a zod schema, or anything with a parse that throws on a wrong shape. */
export interface Parser<T> {
  parse(value: unknown): T;
}

export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

const ANSWER_CUT = "the connection closed before the answer was complete";

/** The most of the parser's words kept: its code and reason are Node's own, but they are said as a node's text is. */
const MALFORMED_BYTES = 256;

/**
 * An answer Node's HTTP parser refused (llhttp's HPE_* codes), in words: its code and reason, never the bytes it
 * read (a node's). Undefined for any other error.
 */
function malformed(error: unknown, where: string): HttpClientError | undefined {
  const { code, reason } = (error ?? {}) as { code?: unknown; reason?: unknown };
  if (typeof code !== "string" || !code.startsWith("HPE_")) return undefined;
  const limit = code === "HPE_HEADER_OVERFLOW" ? `, a header section over ${limitText(maxHeaderSize)}` : "";
  const said = capText(`${code}: ${typeof reason === "string" ? reason : "no reason given"}`, MALFORMED_BYTES).text;
  return new HttpClientError("malformed", where, `malformed HTTP (${printable(said)}${limit})`);
}

/** An answer whose connection closed before its end (the server killed, the network gone mid-answer): Node says only "aborted". */
export const cutOff = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === "ECONNRESET" && (error as Error).message === "aborted";


/** SHA-256 of the peer's certificate (DER), lowercase hex; undefined when it presented none. */
function peerSha256(socket: TLSSocket): string | undefined {
  // Not getPeerCertificate(): it turns every field of the certificate into an object, for the one we read.
  const raw = socket.getPeerX509Certificate()?.raw;
  return raw ? createHash("sha256").update(raw).digest("hex") : undefined;
}

const contexts = new Map<string, SecureContext>();

/** One TLS context per set of CAs trusted, made once: making one costs about what the handshake it serves does. */
function contextFor(ca: string | undefined): SecureContext {
  let context = contexts.get(ca ?? "");
  if (!context) contexts.set(ca ?? "", (context = createSecureContext(ca ? { ca } : {})));
  return context;
}

/** A checked connection as one request uses it. */
interface Opened extends Checked {
  /** Taken from the idle ones, not opened for this request. */
  reused?: boolean;
  /** The server's answer began to arrive. */
  answered?: boolean;
  /** Handed back to the idle ones after a whole answer: no longer this request's to close. */
  kept?: boolean;
  /** The request on it now. */
  sent?: ClientRequest;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");
const portOf = (url: URL) => Number(url.port || (url.protocol === "https:" ? 443 : 80));

/**
 * A connection whose server passed `trust`, resolved before a byte of application data is written.
 * The certificate is always checked here, by us: rejectUnauthorized stays off so that a pin can trust a self-signed one.
 */
function open(url: URL, trust: Trust, timeoutMs: number, signal: AbortSignal, callerSignal: AbortSignal | undefined): Promise<Opened> {
  const where = url.host;
  const host = hostOf(url);
  const port = portOf(url);
  const tls = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined;
    let settled = false;
    const settle = (error?: Error, opened?: Opened) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", cancel);
      if (opened) return resolve(opened);
      socket?.destroy();
      reject(callerSignal?.aborted ? callerSignal.reason : error);
    };
    const cancel = () => settle(new HttpClientError("unreachable", where, `no ${tls ? "TLS handshake" : "connection"} within ${seconds(timeoutMs)}`));
    signal.addEventListener("abort", cancel, { once: true });
    if (signal.aborted) return cancel();
    const failed = (error: Error) => {
      const { code } = error as NodeJS.ErrnoException;
      settle(code === "EMFILE" || code === "ENFILE" ? new OutOfFilesError(where, code) : new HttpClientError("unreachable", where, handshakeProblem(error)));
    };
    if (url.protocol !== "https:" && url.protocol !== "http:") return failed(new Error(`${url.protocol}// is not http or https`));
    try {
      const ca = typeof trust === "object" && !("pin" in trust) ? trust.ca : undefined;
      socket = tls ? tlsConnect({ host, port, rejectUnauthorized: false, secureContext: contextFor(ca), ...(ipFamily(host) ? {} : { servername: host }) }) : tcpConnect({ host, port });
    } catch (error) {
      return failed(error as Error);
    }
    // Kept after the connection too: a socket error with no listener would crash the process.
    socket.on("error", failed);
    if (!tls) {
      socket.once("connect", () => settle(undefined, { socket: socket! }));
      return;
    }
    const secure = socket as TLSSocket;
    secure.once("secureConnect", () => {
      const certificate = peerSha256(secure);
      const refused = trustProblem(secure, trust, certificate);
      if (refused) return settle(new HttpClientError("tls-mismatch", where, `${where} ${refused}`, { presented: certificate }));
      settle(undefined, { socket: secure, certificate });
    });
  });
}

/**
 * A connection's failure in words: a TLS handshake OpenSSL refused is said by its reason, not by OpenSSL's raw line
 * (its error queue's address, its source file and line, a newline); one refused at once because what answers speaks no
 * TLS, as that.
 */
function handshakeProblem(error: Error): string {
  const { code, reason } = error as Error & { code?: string; reason?: string };
  if (!code?.startsWith("ERR_SSL_")) return error.message;
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER") return "no TLS handshake: what answers there does not speak TLS (plain HTTP, or another service on that port?)";
  return `no TLS handshake: ${reason ?? code}`;
}

function trustProblem(socket: TLSSocket, trust: Trust, certificate: string | undefined): string | undefined {
  if (trust === "any") return undefined;
  if ("pin" in trust) return certificate === trust.pin ? undefined : `presented ${certificate ? `a certificate with SHA-256 ${certificate}` : "no certificate"}, not the pinned ${trust.pin}`;
  // CA mode: what Node verified on the handshake (the chain, and the name through checkServerIdentity).
  return socket.authorized ? undefined : `presented a certificate that does not verify (${String(socket.authorizationError)})`;
}

/** Where a connection waits between requests: its origin under its trust, so that it carries only requests of that trust. */
interface Keeping {
  connections: IdleConnections;
  key: string;
}

const trustKey = (trust: Trust) => (trust === "any" ? "any" : "pin" in trust ? `pin ${trust.pin}` : `ca ${trust.ca ?? "system"}`);

/** `Keep-Alive: timeout=5` (what a Node server says): how long the server keeps an idle connection open. */
function serverKeepsMs(headers: IncomingHttpHeaders): number | undefined {
  const seconds = /(?:^|[\s,])timeout=(\d+)/i.exec(String(headers["keep-alive"] ?? ""))?.[1];
  return seconds === undefined ? undefined : Number(seconds) * 1000;
}

/**
 * The request on `opened`. With `keeping`, the connection goes there once the whole answer is read, if the server
 * keeps it open (Node's client says so with the socket's 'free'); without, it is asked to close after the answer.
 */
function send(opened: Opened, url: URL, req: Pick<HttpRequest, "method" | "headers" | "body">, signal: AbortSignal, keeping?: Keeping): Promise<IncomingMessage> {
  const headers = { ...req.headers, ...(req.body === undefined ? {} : { "content-length": String(Buffer.byteLength(req.body)) }), connection: keeping ? "keep-alive" : "close" };
  const options = { host: hostOf(url), port: portOf(url), method: req.method ?? "GET", path: `${url.pathname}${url.search}`, headers, createConnection: () => opened.socket, signal };
  return new Promise((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const sent = (url.protocol === "https:" ? httpsRequest : httpRequest)(options, (res) => {
      answer = res;
      opened.answered = true;
      opened.socket.once("free", () => {
        if (!keeping) return;
        opened.kept = true;
        keeping.connections.keep(keeping.key, { socket: opened.socket, ...(opened.certificate ? { certificate: opened.certificate } : {}) }, serverKeepsMs(res.headers));
      });
      resolve(res);
    });
    opened.sent = sent;
    sent.on("error", (error) => {
      const refused = malformed(error, url.host);
      // A body the parser refused (a broken chunk) is said on the request alone: whoever reads the answer hears why,
      // not Node's bare "aborted" that follows. Bytes past a whole answer are not: it stands, its connection closed.
      if (refused && answer && !answer.complete) answer.destroy(refused);
      reject(refused ?? error);
    });
    // A 101 is no answer Node's client reads on (it hands the connection to an 'upgrade' listener, and else neither
    // answers nor fails, past any deadline): one no installer gives, as another status with no body.
    sent.once("upgrade", (res: IncomingMessage) => {
      opened.answered = true;
      opened.socket.destroy();
      const answer = { status: res.statusCode ?? 101, headers: res.headers, body: "" };
      reject(new HttpClientError("status", url.host, `HTTP ${answer.status}: it switched to another protocol, which no installer does`, { answer }));
    });
    sent.end(req.body);
  });
}

/**
 * After a stream's final event: its end, which a server sends with it or just after, frees its connection for the
 * next request; a stream not ended within END_GRACE_MS is closed (what comes meanwhile is read and dropped).
 */
export function releaseStream(res: IncomingMessage): void {
  if (res.complete || res.destroyed) return;
  const timer = setTimeout(() => res.destroy(), END_GRACE_MS).unref();
  res.once("close", () => clearTimeout(timer));
  res.resume();
}

const END_GRACE_MS = 1_000;

/**
 * After a whole answer: a connection not handed to the idle ones is closed (the server closes it), or, when the
 * answer came before the request's body was all sent, once it is: Node's client frees it ('free') only then.
 */
function done(opened: Opened): void {
  const { sent } = opened;
  if (opened.kept) return;
  if (!sent || sent.destroyed) return void opened.socket.destroy();
  sent.once("close", () => setImmediate(() => opened.kept || opened.socket.destroy()));
}

/** The answer's body, at most `maxBytes` of it (events, not an async iterator: that costs more than a small answer's read). */
function readCapped(res: IncomingMessage, maxBytes: number, where: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      res.off("data", onData);
      res.destroy();
      reject(new HttpClientError("too-large", where, `the answer is over ${limitText(maxBytes)}`));
    };
    const incomplete = () => reject(new Error(ANSWER_CUT));
    // Ended before its reader came (its body refused by the parser as it arrived, with its headers): its error is all there is.
    if (res.destroyed) return reject(res.errored ?? new Error(ANSWER_CUT));
    res.on("data", onData);
    res.once("error", reject);
    res.once("end", () => (res.complete ? resolve(Buffer.concat(chunks).toString("utf8")) : incomplete()));
    res.once("close", () => res.complete || incomplete());
  });
}

/** Requests that may be sent twice: they change nothing on the server. */
const REPEATABLE: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** Once the event loop has read what arrived on every socket: a close a server sent before now is known, its connection dropped. */
const afterPoll = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

type Run<T> = (opened: Opened, url: URL, signal: AbortSignal, where: string, keeping: Keeping) => Promise<T>;

/**
 * `run` on a checked connection (an idle one of the origin's under the same trust, else a new one) under the
 * request's one deadline, what fails as an HttpClientError; after a whole answer `run` hands the connection back or
 * closes it. A GET or HEAD that an idle connection failed before any answer (the server had closed it) runs once
 * more on a new connection; another request never: it may have reached the server. So that one goes on an idle
 * connection only once every close its server sent before the request is read, and within the time the server
 * said it keeps it open (less a margin): a connection the server closes as the request goes out is then one it
 * closed for another reason than idleness (a restart), as it could close a new one.
 */
async function exchange<T>(req: HttpRequest, run: Run<T>): Promise<T> {
  const url = new URL(req.url);
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
  const keeping = { connections: req.connections ?? shared, key: `${url.protocol}//${url.host} ${trustKey(req.trust)}` };
  const on = async (opened: Opened): Promise<T> => {
    try {
      return await run(opened, url, signal, url.host, keeping);
    } catch (error) {
      if (!opened.kept) opened.socket.destroy();
      req.signal?.throwIfAborted();
      if (error instanceof HttpClientError || error instanceof NotWrittenError) throw error;
      if (deadline.aborted) throw new HttpClientError("timeout", url.host, `no complete answer within ${seconds(req.timeoutMs)}`);
      throw new HttpClientError("broken", url.host, cutOff(error) ? ANSWER_CUT : (error as Error).message);
    }
  };
  const repeatable = REPEATABLE.has(req.method ?? "GET");
  if (!repeatable && keeping.connections.size > 0) await afterPoll();
  const idle = keeping.connections.take(keeping.key);
  if (idle) {
    const opened: Opened = { ...idle, reused: true };
    try {
      return await on(opened);
    } catch (error) {
      const again = repeatable && error instanceof HttpClientError && error.kind === "broken" && !opened.answered;
      if (!again) throw error;
    }
  }
  return on(await open(url, req.trust, req.timeoutMs, signal, req.signal));
}

/** One request, its answer read whole as text, whatever its status (but 101: a status error, see send). */
export function request(req: HttpRequest): Promise<Answer> {
  return exchange(req, async (opened, url, signal, where, keeping) => {
    const res = await send(opened, url, req, signal, keeping);
    const body = await readCapped(res, req.maxBytes, where);
    done(opened);
    return { status: res.statusCode ?? 0, headers: res.headers, body, ...(opened.certificate ? { certificate: opened.certificate } : {}) };
  });
}

/** The most of a refusal's body read when a download is answered with another status than 200. */
const REFUSAL_BYTES = 64 * 1024;

/**
 * A 200 answer's body written to `path` as it arrives, mode 0600, through a temp file renamed over it once whole:
 * `path` holds a whole answer or nothing. Another status is a status error with its body read (to 64 KiB); over
 * `maxBytes` a too-large error. The deadline covers the whole download. `placeOf`, given the whole temp file, says
 * where it goes instead of `path` (what it holds judged before it replaces what `path` held).
 */
export function download(req: Omit<HttpRequest, "body">, path: string, placeOf?: (temp: string) => Promise<string>): Promise<{ size: number; sha256: string; path: string }> {
  return exchange(req, async (opened, url, signal, where, keeping) => {
    // Beside the operator's own files (a gather's folder, perhaps one others may write to): a name no one can plant.
    const temp = tempPathOf(path, { unguessable: true });
    // This machine's disk, not the server: a full one is said as such, never as a broken connection (nor tried again).
    const local = <T>(write: Promise<T>) => write.catch((error: unknown) => Promise.reject(new NotWrittenError(path, error)));
    try {
      const res = await send(opened, url, req, signal, keeping);
      if (res.statusCode !== 200) {
        const answer = { status: res.statusCode ?? 0, headers: res.headers, body: await readCapped(res, REFUSAL_BYTES, where).catch(() => "") };
        throw new HttpClientError("status", where, `HTTP ${answer.status}, expected 200`, { answer });
      }
      const file = await local(openTempFile(temp, 0o600, { fresh: true }));
      const hash = createHash("sha256");
      let size = 0;
      try {
        for await (const chunk of res as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > req.maxBytes) throw new HttpClientError("too-large", where, `the answer is over ${limitText(req.maxBytes)}`);
          hash.update(chunk);
          await local(file.write(chunk));
        }
        if (!res.complete) throw new Error(ANSWER_CUT);
        done(opened);
        await local(file.chmod(0o600));
        await local(file.sync());
      } finally {
        await file.close();
      }
      const to = placeOf ? await placeOf(temp) : path;
      await local(rename(temp, to));
      await local(syncFolder(dirname(to)));
      return { size, sha256: hash.digest("hex"), path: to };
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  });
}

/** An answer's body as JSON of `schema`'s shape; a not-json or schema error otherwise. */
export function parseAnswer<T>(answer: Answer, schema: Parser<T>, where: string): T {
  return parseJson(answer.body, schema, where, { what: "the answer", context: `HTTP ${answer.status}: `, answer });
}

/**
 * Text from `where` as JSON of `schema`'s shape; otherwise a not-json or schema error saying "`context``what` is not
 * …", or, from a parser of the caller's own, its words after `context` (or `what`).
 */
export function parseJson<T>(text: string, schema: Parser<T>, where: string, said: { what: string; context?: string; answer?: Answer }): T {
  const { what, context = "", answer } = said;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpClientError("not-json", where, `${context}${what} is not JSON`, answer ? { answer } : {});
  }
  try {
    return schema.parse(value);
  } catch (error) {
    const issue = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues?.[0];
    const problem = issue
      ? `${context}${what} is not of its schema (${issue.path.length ? `${issue.path.map(String).join(".")}: ` : ""}${issue.message})`
      : `${context || `${what}: `}${(error as Error).message}`;
    throw new HttpClientError("schema", where, problem, answer ? { answer } : {});
  }
}

/**
 * One request whose answer must have status `expect`, its body parsed with `schema`. Another status is a
 * status error carrying the answer (the caller reads its problem).
 */
export async function requestJson<T>(req: HttpRequest, expect: number, schema: Parser<T>): Promise<Answer<T>> {
  const answer = await request(req);
  const where = new URL(req.url).host;
  if (answer.status !== expect) throw new HttpClientError("status", where, `HTTP ${answer.status}, expected ${expect}`, { answer });
  return { ...answer, body: parseAnswer(answer, schema, where) };
}

/**
 * A long answer (an event stream) as it arrives: the deadline covers the connection and the headers; then a
 * connection silent for `idleMs` counts as broken. A status other than 200 is a status error with the body read,
 * the whole exchange under the deadline.
 */
export function openStream(req: Omit<HttpRequest, "body"> & { idleMs: number }): Promise<IncomingMessage> {
  return exchange(req, async (opened, url, deadline, where, keeping) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal;
    let res: IncomingMessage | undefined;
    const silent = () => (res ?? opened.socket).destroy(new Error(`nothing heard for ${seconds(req.idleMs)}`));
    opened.socket.setTimeout(req.idleMs, silent);
    // A stream the server ends whole frees its connection ('free'): no longer this stream's to watch.
    opened.socket.once("free", () => opened.socket.setTimeout(0).off("timeout", silent));
    try {
      res = await send(opened, url, req, signal, keeping);
    } finally {
      clearTimeout(timer);
    }
    if (res.statusCode === 200) return res;
    // A refusal is an answer like any other: read whole within the request's deadline, however its bytes trickle.
    const late = () => res!.destroy(new Error("deadline"));
    deadline.addEventListener("abort", late, { once: true });
    if (deadline.aborted) late();
    let body: string;
    try {
      body = await readCapped(res, req.maxBytes, where);
    } finally {
      deadline.removeEventListener("abort", late);
    }
    const answer = { status: res.statusCode ?? 0, headers: res.headers, body };
    opened.socket.destroy();
    throw new HttpClientError("status", where, `HTTP ${answer.status}, expected 200`, { answer });
  });
}

/** The SHA-256 of the certificate an https URL presents (the init side records its cloud API's). Rejects with the reason. */
export async function certificateSha256(url: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:") throw new Error(`${parsed.protocol}// has no certificate`);
  const deadline = AbortSignal.timeout(timeoutMs);
  const opened = await open(parsed, "any", timeoutMs, signal ? AbortSignal.any([signal, deadline]) : deadline, signal);
  opened.socket.destroy();
  if (!opened.certificate) throw new Error(`${parsed.host} presented no certificate`);
  return opened.certificate;
}
