import type { components, paths } from "../test/generated/installer-api.d.ts";
import { signOut } from "./sign-in.ts";
import { state } from "./state.ts";
import { noteServerDate } from "./time.ts";

/** The API's schemas, generated from /openapi.json (`npm run client`): an API change the console does not follow fails `npm run typecheck`. */
export type Schemas = components["schemas"];

export const API = "/v1/installer";

type Routes = { [P in keyof paths as P extends `${typeof API}${infer Path}` ? Path : never]: paths[P] };
type Method = "get" | "put" | "post";
type PathOf<M extends Method> = { [P in keyof Routes]: Routes[P][M] extends undefined ? never : P }[keyof Routes];
type Operation<P extends keyof Routes, M extends Method> = NonNullable<Routes[P][M]>;
type Json<Reply> = Reply extends { content: { "application/json": infer Body } } ? Body : never;
type Answer<Op> = Op extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 202>]> : never;

interface Call<Op, M extends Method> {
  method?: M;
  body?: Op extends { requestBody: { content: { "application/json": infer Body } } } ? Body : never;
  yaml?: string;
  query?: Op extends { parameters: { query?: infer Query } } ? Query : never;
  signingIn?: boolean;
  ifMatch?: string;
  /** Given the answer's ETag. */
  etag?: (tag: string) => void;
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

export async function api<P extends PathOf<M>, M extends Method = "get">(path: P, options: Call<Operation<P, M>, M> = {}): Promise<Answer<Operation<P, M>>> {
  const headers: Record<string, string> = { Authorization: "Bearer " + state.code };
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
  const res = await fetch(API + path + query, { method: (options.method || "get").toUpperCase(), headers, body, cache: "no-store" });
  noteServerDate(res);
  const data = (res.headers.get("content-type") || "").includes("json") ? await res.json() : await res.text();
  if (res.ok) {
    options.etag?.(res.headers.get("etag") || "");
    return data;
  }
  throw problemOf(res, data, options.signingIn);
}

/** A refused code ends the session. */
export function problemOf(res: Response, data: Partial<Schemas["Problem"]>, signingIn?: boolean): Problem {
  const problem = Object.assign(new Error(data.detail || data.title || "HTTP " + res.status), {
    status: res.status,
    code: data.code,
    errors: data.errors || [],
    blockers: data.blockers || [],
    retryAfter: Number(res.headers.get("retry-after")) || 0,
  });
  if ((res.status === 401 || res.status === 429) && !signingIn) signOut(problem);
  return problem;
}
