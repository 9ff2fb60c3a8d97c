import type { z } from "zod";
import type { Draft } from "../../core/config/index.ts";
import type { Blocker } from "../../core/common/errors.ts";
import type { HostFacts } from "../../core/host/facts.ts";
import type { JoinTokenSchema } from "../../handlers/schemas/cluster.ts";
import type { DraftViewSchema } from "../../handlers/schemas/draft.ts";
import type { EventSchema, StartedSchema, VerdictSchema } from "../../handlers/schemas/install.ts";
import type { StatusSchema } from "../../handlers/get-status.ts";
import type { NodeAccess } from "./node-access.ts";
import { type Answer, pinnedRequest, pinnedStream } from "./pinned-https.ts";
import { readSse } from "./sse.ts";
import type { FieldError } from "../../core/state/records.ts";

export type Status = z.infer<typeof StatusSchema>;
export type Verdict = z.infer<typeof VerdictSchema>;
export type InstallEvent = z.infer<typeof EventSchema>;
type Started = z.infer<typeof StartedSchema>;
export type JoinToken = z.infer<typeof JoinTokenSchema>;
export type DraftView = z.infer<typeof DraftViewSchema>;

export interface Options {
  release: string | null;
  host: HostFacts;
}

interface Validation {
  valid: boolean;
  errors: FieldError[];
}

/** A problem+json answer (SPEC §4). */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: FieldError[];
  readonly blockers: Blocker[];
  constructor(status: number, body: { code?: string; detail?: string; title?: string; errors?: FieldError[]; blockers?: Blocker[] }) {
    super(body.detail ?? body.title ?? `HTTP ${status}`);
    this.name = "ApiProblem";
    this.status = status;
    this.code = body.code ?? `HTTP_${status}`;
    this.errors = body.errors ?? [];
    this.blockers = body.blockers ?? [];
  }
}

const TIMEOUT_MS = 15_000;
const BASE = "/v1/installer";

type ProblemBody = ConstructorParameters<typeof ApiProblem>[1];

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** One node's installer, through its public API only, over pinned TLS. */
export class NodeApi {
  readonly #access: NodeAccess;

  constructor(access: NodeAccess) {
    this.#access = access;
  }

  get where(): string {
    return this.#access.url.host;
  }

  async #call<T>(method: string, path: string, expect: number, options: { body?: unknown; ifMatch?: string } = {}): Promise<{ value: T; answer: Answer }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#access.code}`, accept: "application/json" };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.ifMatch !== undefined) headers["if-match"] = options.ifMatch;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const answer = await pinnedRequest(this.#access.url, this.#access.pin, { method, path: `${BASE}${path}`, headers, body, timeoutMs: TIMEOUT_MS });
    const value = parse(answer.body);
    if (answer.status !== expect) throw new ApiProblem(answer.status, value as ProblemBody);
    return { value: value as T, answer };
  }

  async status(): Promise<Status> {
    return (await this.#call<Status>("GET", "/status", 200)).value;
  }

  async options(): Promise<Options> {
    return (await this.#call<Options>("GET", "/options", 200)).value;
  }

  async config(): Promise<{ view: DraftView; etag: string }> {
    const { value, answer } = await this.#call<DraftView>("GET", "/config", 200);
    return { view: value, etag: String(answer.headers.etag ?? "") };
  }

  async validate(draft: Draft): Promise<Validation> {
    return (await this.#call<Validation>("POST", "/config/validate", 200, { body: draft })).value;
  }

  async putConfig(draft: Draft, ifMatch?: string): Promise<{ view: DraftView; etag: string }> {
    const { value, answer } = await this.#call<DraftView>("PUT", "/config", 200, { body: draft, ifMatch });
    return { view: value, etag: String(answer.headers.etag ?? "") };
  }

  async install(): Promise<Started> {
    return (await this.#call<Started>("POST", "/install", 202)).value;
  }

  async recheck(): Promise<Started> {
    return (await this.#call<Started>("POST", "/install/recheck-readiness", 202)).value;
  }

  /** The attempt's verdict, or undefined while it runs. */
  async verdict(attempt?: number): Promise<Verdict | undefined> {
    try {
      return (await this.#call<Verdict>("GET", `/install/verdict${attempt ? `?attempt=${attempt}` : ""}`, 200)).value;
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "INSTALL_RUNNING") return undefined;
      throw error;
    }
  }

  async report(attempt?: number): Promise<unknown> {
    return (await this.#call<unknown>("GET", `/install/report${attempt ? `?attempt=${attempt}` : ""}`, 200)).value;
  }

  async joinToken(): Promise<JoinToken> {
    return (await this.#call<JoinToken>("GET", "/cluster/join-token", 200)).value;
  }

  /** The attempt's events after `after` as they come (SSE); ends when the installer closes the stream. */
  async *events(attempt: number, after: number, signal: AbortSignal): AsyncGenerator<InstallEvent> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#access.code}`, accept: "text/event-stream", "last-event-id": String(after) };
    const res = await pinnedStream(this.#access.url, this.#access.pin, { method: "GET", path: `${BASE}/install/events?attempt=${attempt}`, headers, timeoutMs: TIMEOUT_MS, idleMs: 45_000, signal });
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
      throw new ApiProblem(res.statusCode ?? 0, parse(Buffer.concat(chunks).toString("utf8")) as ProblemBody);
    }
    for await (const data of readSse(res)) yield JSON.parse(data) as InstallEvent;
  }
}
