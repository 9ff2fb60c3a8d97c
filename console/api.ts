/** The installer's API over HTTP: a request in, a typed result out. It knows no session and no page: deciding what a refusal means is the store's. */
import type { components, paths } from "./api-types.d.ts";
import { STOPPING_COMMENT } from "../core/http/stopping.ts";
import { noteServerDate } from "./time.ts";

/** The API's schemas, generated from the handlers' own (`npm run console:types`): an API change the console does not follow fails `npm run typecheck`. */
export type Schemas = components["schemas"];

export const API = "/v1/installer";

type Routes = { [P in keyof paths as P extends `${typeof API}${infer Path}` ? Path : never]: paths[P] };
export type Method = "get" | "put" | "post";
export type PathOf<M extends Method> = { [P in keyof Routes]: Routes[P][M] extends undefined ? never : P }[keyof Routes];
export type Operation<P extends keyof Routes, M extends Method> = NonNullable<Routes[P][M]>;
type Json<Reply> = Reply extends { content: { "application/json": infer Body } } ? Body : never;
export type Answer<Op> = Op extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 202>]> : never;

export interface Call<Op, M extends Method> {
  method?: M;
  body?: Op extends { requestBody: { content: { "application/json": infer Body } } } ? Body : never;
  yaml?: string;
  query?: Op extends { parameters: { query?: infer Query } } ? Query : never;
  ifMatch?: string;
}

/** A problem+json answer as an Error; an Error without `status` means the installer did not answer. */
export type Problem = Error & {
  status: number;
  code?: Schemas["Problem"]["code"];
  errors: Schemas["FieldError"][];
  blockers: Schemas["Blocker"][];
  retryAfter: number;
};
export type Failure = Error & Partial<Problem>;

type Result<T> = { ok: true; data: T; etag: string } | { ok: false; problem: Failure };

export async function request<P extends PathOf<M>, M extends Method = "get">(code: string, path: P, options: Call<Operation<P, M>, M> = {}): Promise<Result<Answer<Operation<P, M>>>> {
  const headers: Record<string, string> = { Authorization: "Bearer " + code };
  if (options.ifMatch) headers["If-Match"] = options.ifMatch;
  let body: string | undefined;
  if (options.yaml !== undefined) {
    headers["Content-Type"] = "application/yaml";
    body = options.yaml;
  } else if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const query = options.query ? "?" + new URLSearchParams(options.query as Record<string, string>) : "";
  try {
    const res = await fetch(API + path + query, { method: (options.method || "get").toUpperCase(), headers, body, cache: "no-store" });
    noteServerDate(res);
    const data = (res.headers.get("content-type") || "").includes("json") ? await res.json() : await res.text();
    if (res.ok) return { ok: true, data, etag: res.headers.get("etag") || "" };
    return { ok: false, problem: problemOf(res, data) };
  } catch (err) {
    return { ok: false, problem: err as Failure };
  }
}

/** A file the API answers (the support bundle): its bytes and the name its Content-Disposition gives, `fallback` when it names none. */
export async function requestFile(code: string, path: PathOf<"get">, fallback: string): Promise<Result<{ blob: Blob; name: string }>> {
  try {
    const res = await fetch(API + path, { headers: { Authorization: "Bearer " + code }, cache: "no-store" });
    noteServerDate(res);
    if (!res.ok) return { ok: false, problem: problemOf(res, (res.headers.get("content-type") || "").includes("json") ? await res.json() : {}) };
    const named = /filename="?([^";]+)"?/.exec(res.headers.get("content-disposition") || "");
    return { ok: true, data: { blob: await res.blob(), name: named ? named[1]! : fallback }, etag: "" };
  } catch (err) {
    return { ok: false, problem: err as Failure };
  }
}

function problemOf(res: Response, data: Partial<Schemas["Problem"]>): Problem {
  return Object.assign(new Error(data.detail || data.title || "HTTP " + res.status), {
    status: res.status,
    code: data.code,
    errors: data.errors || [],
    blockers: data.blockers || [],
    retryAfter: Number(res.headers.get("retry-after")) || 0,
  });
}

/** The certificate this page came over; public, no install code. Null when the installer does not say. */
export async function fetchTls(): Promise<Schemas["Tls"] | null> {
  const res = await fetch("/tls", { cache: "no-store" });
  return res.ok ? res.json() : null;
}

/**
 * Server-Sent Events over fetch (EventSource cannot send the install code, nor show a comment line), resumed with
 * Last-Event-ID; a refusal rejects with its Problem. `onOpen` hears of each answer that opens the stream, `onBreak` of
 * each try that broke off or failed: `stopping` when the installer ended it saying it stops (a restart, or a stop).
 */
export async function readEvents(code: string, attempt: number, signal: AbortSignal, onEvent: (event: Schemas["InstallEvent"]) => void, onBreak: (stopping: boolean) => void, onOpen: () => void): Promise<void> {
  let lastId = 0;
  // The installer's last word on the stream, after its last event: it stops. Said of each try until a stream opens again.
  let stopping = false;
  for (let failures = 0; !signal.aborted; failures += 1) {
    try {
      const headers: Record<string, string> = { Authorization: "Bearer " + code, Accept: "text/event-stream" };
      if (lastId) headers["Last-Event-ID"] = String(lastId);
      const res = await fetch(API + "/install/events?attempt=" + attempt, { headers, signal, cache: "no-store" });
      if (!res.ok) throw problemOf(res, await res.json());
      failures = 0;
      stopping = false;
      onOpen();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const message = parseMessage(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (!message.data) {
            if (message.comment !== undefined) stopping = message.comment === STOPPING_COMMENT;
            continue;
          }
          stopping = false;
          const event: Schemas["InstallEvent"] = JSON.parse(message.data);
          lastId = Number(message.id) || event.seq;
          onEvent(event);
          if (event.type === "attempt.finished") return;
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      if ((err as Failure).status) throw err;
    }
    onBreak(stopping);
    await pause(Math.min(500 * 2 ** failures, 8000), signal);
  }
}

/** Waits `ms`, or until `signal` aborts (a reader the page stopped ends at once, not after its wait to reconnect). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A message's id and data lines; `comment`, its last comment line (a heartbeat, or the installer's word that it stops). */
function parseMessage(block: string): { id: string; data: string; comment?: string } {
  const message: { id: string; data: string; comment?: string } = { id: "", data: "" };
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) message.comment = line.slice(1).replace(/^ /, "");
    else if (line.startsWith("id:")) message.id = line.slice(3).trim();
    else if (line.startsWith("data:")) message.data += (message.data ? "\n" : "") + line.slice(5).replace(/^ /, "");
  }
  return message;
}
