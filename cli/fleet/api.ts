import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { capText } from "../../core/common/cut-text.ts";
import type { Draft } from "../../core/config/index.ts";
import type { Blocker } from "../../core/common/errors.ts";
import type { FieldError } from "../../core/state/records.ts";
import { type Answer, HttpClientError, type HttpRequest, type Parser, download, parseAnswer, requestJson, wrongAnswer } from "../../core/http/client.ts";
import { readEvents } from "../../core/http/sse.ts";
import { StatusSchema } from "../../handlers/get-status.ts";
import { ReportSchema } from "../../handlers/get-install-report.ts";
import { OptionsSchema } from "../../handlers/get-options.ts";
import { ValidationSchema } from "../../handlers/post-config-validate.ts";
import { JoinTokenSchema } from "../../handlers/schemas/cluster.ts";
import { DraftViewSchema } from "../../handlers/schemas/draft.ts";
import { EventSchema, StartedSchema, VerdictSchema } from "../../handlers/schemas/install.ts";
import { BlockerSchema, FieldErrorSchema } from "../../handlers/schemas/problem.ts";
import { type NodeAccess, formatFingerprint } from "./node-access.ts";

export type Status = z.infer<typeof StatusSchema>;
export type Verdict = z.infer<typeof VerdictSchema>;
export type Report = z.infer<typeof ReportSchema>;
export type InstallEvent = z.infer<typeof EventSchema>;
type Started = z.infer<typeof StartedSchema>;
export type JoinToken = z.infer<typeof JoinTokenSchema>;
export type DraftView = z.infer<typeof DraftViewSchema>;
export type Options = z.infer<typeof OptionsSchema>;
export type Validation = z.infer<typeof ValidationSchema>;

/** A node's text in a problem kept to a size: it is shown on a line, and a node may say megabytes. */
export const PROBLEM_CAPS = { detailBytes: 2048, codeBytes: 80, items: 50, itemBytes: 512 } as const;
const capped = (text: string, maxBytes: number) => capText(text, maxBytes).text;

/** A node's blockers as the fleet shows them, in a problem or in its status: at most PROBLEM_CAPS.items, each capped. */
export function cappedBlockers(blockers: readonly Blocker[]): Blocker[] {
  const { codeBytes, items, itemBytes } = PROBLEM_CAPS;
  return blockers.slice(0, items).map((b) => ({ ...b, code: capped(b.code, codeBytes), detail: capped(b.detail, itemBytes) }));
}

/**
 * A node's field errors as the fleet shows them (a validation's, a problem's): at most PROBLEM_CAPS.items, each field
 * and message capped; one more says how many were left out. A node may answer thousands.
 */
export function cappedFieldErrors(errors: readonly FieldError[]): FieldError[] {
  const { items, itemBytes } = PROBLEM_CAPS;
  const kept = errors.slice(0, items).map((e) => ({ ...e, field: capped(e.field, itemBytes), message: capped(e.message, itemBytes), ...(e.hint === undefined ? {} : { hint: capped(e.hint, itemBytes) }) }));
  if (errors.length > items) kept.push({ field: "", message: `and ${errors.length - items} more the node found (its POST /v1/installer/config/validate lists them all)` });
  return kept;
}

/** A problem+json answer (SPEC §4), its node's text capped (PROBLEM_CAPS). */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: FieldError[];
  readonly blockers: Blocker[];
  constructor(status: number, body: { code?: string; detail?: string; title?: string; errors?: FieldError[]; blockers?: Blocker[] }) {
    const { detailBytes, codeBytes } = PROBLEM_CAPS;
    super(capped(body.detail ?? body.title ?? `HTTP ${status}`, detailBytes));
    this.name = "ApiProblem";
    this.status = status;
    this.code = capped(body.code ?? `HTTP_${status}`, codeBytes);
    this.errors = cappedFieldErrors(body.errors ?? []);
    this.blockers = cappedBlockers(body.blockers ?? []);
  }
}

const TIMEOUT_MS = 15_000;
/** A Date header says whole seconds, and comes after the answer's way: a node's clock this close is this machine's. */
const CLOCK_NOISE_MS = 5_000;
/** Three missed heartbeats (15 s apart): the connection is gone even if no error says so. */
const IDLE_MS = 45_000;
const MAX_ANSWER = 16 * 1024 * 1024;
const BASE = "/v1/installer";
/** A node's bundle is at most 10 MB (SPEC §11); the cap leaves room and bounds a node that streams on. */
const MAX_BUNDLE = 64 * 1024 * 1024;
const BUNDLE_TIMEOUT_MS = 120_000;

/** What the fleet reads of a problem+json: each field of the API's type when present. */
const ProblemBodySchema = z.object({
  code: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  errors: z.array(FieldErrorSchema).optional(),
  blockers: z.array(BlockerSchema).optional(),
});

/** A refusal's problem; its body not JSON (a proxy's error page), a problem with its status only. */
function problemOf(answer: Answer, where: string): ApiProblem | HttpClientError {
  try {
    return new ApiProblem(answer.status, parseAnswer(answer, ProblemBodySchema, where));
  } catch (error) {
    const wrong = error as HttpClientError;
    return wrong.kind === "not-json" ? new ApiProblem(answer.status, {}) : wrongAnswerError(wrong);
  }
}

const wrongAnswerError = ({ kind, where, message, answer }: HttpClientError) =>
  new HttpClientError(kind, where, `${where} gave an answer that is not its installer's: ${message}`, answer ? { answer } : {});

export { wrongAnswer };

/**
 * A node that may answer when asked again: busy or restarting (5xx, 429), or out of reach for now; not one that
 * gave an answer no installer gives, nor one that presents another certificate.
 */
export function worthAskingAgain(error: unknown): boolean {
  if (error instanceof ApiProblem) return error.status >= 500 || error.status === 429;
  return error instanceof HttpClientError && error.kind !== "tls-mismatch" && !wrongAnswer(error);
}

/**
 * The client's error in the fleet's words: another certificate than the plan's is refused (a tls-mismatch),
 * another status a problem of the node's (an ApiProblem), a wrong shape not its installer's, anything else out of reach.
 */
function inFleetWords(error: unknown, pin: string): unknown {
  if (!(error instanceof HttpClientError)) return error;
  const { kind, where, presented, answer, message: said } = error;
  if (kind === "status") return problemOf(answer!, where);
  if (kind === "tls-mismatch") {
    const seen = presented ? formatFingerprint(presented) : "unknown (none presented)";
    const message = `${where} presented a certificate whose SHA-256 is ${seen}, not the plan's ${formatFingerprint(pin)}: refused, nothing was sent (compare with the TLS SHA-256 line of its installer's banner)`;
    return new HttpClientError(kind, where, message, { presented });
  }
  if (wrongAnswer(error)) return wrongAnswerError(error);
  return new HttpClientError(kind, where, `${where} is unreachable: ${said}`);
}

/** One node's installer, through its public API only, over pinned TLS; each answer parsed with the API's own schema. */
export class NodeApi {
  readonly #access: NodeAccess;
  /** How far the node's clock is behind this machine's, by its last answer's Date; 0 while within CLOCK_NOISE_MS. */
  #clockBehindMs = 0;

  constructor(access: NodeAccess) {
    this.#access = access;
  }

  get where(): string {
    return this.#access.url.host;
  }

  /**
   * Add to a time the node gives (an attempt's startedAt) for this machine's clock: a fresh node's clock may be hours
   * off (a hardware clock kept in local time), and its elapsed time then showed as -3600s. By its answers' Date header.
   */
  get clockBehindMs(): number {
    return this.#clockBehindMs;
  }

  #request(path: string, headers: Record<string, string>): Omit<HttpRequest, "maxBytes"> {
    return { url: new URL(`${BASE}${path}`, this.#access.url), trust: { pin: this.#access.pin }, headers: { authorization: `Bearer ${this.#access.code}`, ...headers }, timeoutMs: TIMEOUT_MS };
  }

  async #call<T>(method: string, path: string, expect: number, schema: Parser<T>, options: { body?: unknown; ifMatch?: string } = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.ifMatch !== undefined) headers["if-match"] = options.ifMatch;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    try {
      const answer = await requestJson({ ...this.#request(path, headers), method, body, maxBytes: MAX_ANSWER }, expect, schema);
      const said = Date.parse(String(answer.headers.date ?? ""));
      if (Number.isFinite(said)) this.#clockBehindMs = Math.abs(Date.now() - said) < CLOCK_NOISE_MS ? 0 : Date.now() - said;
      return answer;
    } catch (error) {
      throw inFleetWords(error, this.#access.pin);
    }
  }

  async status(): Promise<Status> {
    return (await this.#call("GET", "/status", 200, StatusSchema)).body;
  }

  /** Its status once its payload check is done (a node that just started may still be hashing its payload), or as it is after `waitMs`. */
  async settledStatus(waitMs: number): Promise<Status> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const status = await this.status();
      const verifying = (status.blockers ?? []).length > 0 && status.blockers!.every((b) => b.code === "PAYLOAD_VERIFYING");
      if (!verifying || Date.now() > deadline) return status;
      await sleep(250);
    }
  }

  async options(): Promise<Options> {
    return (await this.#call("GET", "/options", 200, OptionsSchema)).body;
  }

  async config(): Promise<{ view: DraftView; etag: string }> {
    const { body, headers } = await this.#call("GET", "/config", 200, DraftViewSchema);
    return { view: body, etag: String(headers.etag ?? "") };
  }

  async validate(draft: Draft): Promise<Validation> {
    const validation = (await this.#call("POST", "/config/validate", 200, ValidationSchema, { body: draft })).body;
    return { ...validation, errors: cappedFieldErrors(validation.errors) };
  }

  async putConfig(draft: Draft, ifMatch?: string): Promise<{ view: DraftView; etag: string }> {
    const { body, headers } = await this.#call("PUT", "/config", 200, DraftViewSchema, { body: draft, ifMatch });
    return { view: body, etag: String(headers.etag ?? "") };
  }

  /** With `ifMatch` (the draft's ETag as the fleet wrote it), only that draft is installed: 412 otherwise. */
  async install(ifMatch?: string): Promise<Started> {
    return (await this.#call("POST", "/install", 202, StartedSchema, ifMatch ? { ifMatch } : {})).body;
  }

  async recheck(): Promise<Started> {
    return (await this.#call("POST", "/install/recheck-readiness", 202, StartedSchema)).body;
  }

  /** The attempt's verdict, or undefined while it runs. */
  async verdict(attempt?: number): Promise<Verdict | undefined> {
    try {
      return (await this.#call("GET", `/install/verdict${attempt ? `?attempt=${attempt}` : ""}`, 200, VerdictSchema)).body;
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "INSTALL_RUNNING") return undefined;
      throw error;
    }
  }

  async report(attempt?: number): Promise<Report> {
    return (await this.#call("GET", `/install/report${attempt ? `?attempt=${attempt}` : ""}`, 200, ReportSchema)).body;
  }

  async joinToken(): Promise<JoinToken> {
    return (await this.#call("GET", "/cluster/join-token", 200, JoinTokenSchema)).body;
  }

  /** The node's support bundle (SPEC §11), written to `path` (0600) once whole: its size and SHA-256. */
  async supportBundle(path: string, signal?: AbortSignal, placeOf?: (temp: string) => Promise<string>): Promise<{ size: number; sha256: string; path: string }> {
    try {
      return await download({ ...this.#request("/support-bundle", { accept: "application/gzip" }), timeoutMs: BUNDLE_TIMEOUT_MS, maxBytes: MAX_BUNDLE, ...(signal ? { signal } : {}) }, path, placeOf);
    } catch (error) {
      throw inFleetWords(error, this.#access.pin);
    }
  }

  /**
   * The attempt's events after `after` as they come (SSE), until attempt.finished or the installer closes the stream; a
   * stream it ends saying it stops is out of reach (unreachable) for now, said so: the watcher follows on once it answers.
   */
  async *events(attempt: number, after: number, signal: AbortSignal): AsyncGenerator<InstallEvent> {
    let stopping = false;
    const stream = readEvents({
      ...this.#request(`/install/events?attempt=${attempt}`, {}),
      idleMs: IDLE_MS,
      signal,
      lastEventId: String(after),
      schema: EventSchema,
      isFinal: (event) => event.type === "attempt.finished",
      onStopping: () => (stopping = true),
    });
    let heard = false;
    try {
      for await (const { event } of stream) {
        heard = true;
        yield event;
      }
    } catch (error) {
      // A stream that broke after events came is said as it broke: the watcher resumes it.
      throw heard && !wrongAnswer(error) ? error : inFleetWords(error, this.#access.pin);
    }
    if (stopping) throw new HttpClientError("unreachable", this.where, `the installer at ${this.where} is stopping (a restart, or a stop)`);
  }
}
