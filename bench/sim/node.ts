/**
 * One simulated installer: the API's happy path as the fleet uses it (status, options, config get/validate/put
 * with ETag and If-Match, install, the events stream, verdict, report, join token, join check), each answer of
 * the shape the handlers' schemas give. No validation, no steps run: an attempt is its event script played out
 * over `attemptMs`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { attemptScript } from "./script.ts";

export interface SimNodeOptions {
  name: string;
  role: "init" | "join";
  code: string;
  /** How long an attempt takes, its events spread evenly over it. */
  attemptMs: number;
}

interface Event {
  seq: number;
  attempt: number;
  time: string;
  type: string;
  step?: string;
  level: string;
  message: string;
  data?: Record<string, unknown>;
}

const BASE = "/v1/installer";
const RELEASE = "2026.12.0-sim";
const MAX_BODY = 1024 * 1024;
const TITLES: Record<number, string> = { 401: "Unauthorized", 404: "Not found", 409: "An install attempt is running", 412: "Precondition failed", 413: "Body too large" };

const HOST = {
  interfaces: [{ name: "eno1", mac: "52:54:00:00:00:01", up: true, addresses: [] }],
  disks: [{ name: "sdb", path: "/dev/sdb", sizeBytes: 960_197_124_096, model: "SIM SSD", rotational: false, inUse: false }],
  memoryBytes: 256 * 1024 ** 3,
  cpuCount: 64,
};
const MODES = [
  { mode: "single-node", profile: "single-node", nodeYamlMode: "single-node", available: true, preview: false },
  { mode: "hyperconverged-init", profile: "hyperconverged", nodeYamlMode: "ha-init", available: true, preview: false },
  { mode: "hyperconverged-join", profile: "hyperconverged", nodeYamlMode: "join", available: true, preview: false },
  { mode: "disaggregated-control-plane", profile: "disaggregated", nodeYamlMode: "control-plane", available: false, reason: "a preview", preview: true },
];

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const type = status >= 400 ? "application/problem+json" : "application/json";
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(text), ...headers }).end(text);
}

const problem = (res: ServerResponse, status: number, code: string, detail: string, headers?: Record<string, string>) =>
  send(res, status, { type: "about:blank", title: TITLES[status] ?? "Error", status, detail, code, requestId: "sim" }, headers);

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > MAX_BODY) req.destroy(new Error("body too large"));
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(error);
      }
    });
    req.on("error", reject);
  });
}

export class SimNode {
  readonly options: SimNodeOptions;
  #phase: "configuring" | "installing" | "done" = "configuring";
  #attempt = 0;
  #startedAt?: string;
  #finishedAt?: string;
  #step?: string;
  #draft: Record<string, unknown> = {};
  #version = 0;
  #updatedAt: string | null = null;
  #events: Event[] = [];
  #listeners = new Set<(event: Event) => void>();

  constructor(options: SimNodeOptions) {
    this.options = options;
  }

  get #etag(): string {
    return `"v${this.#version}"`;
  }

  #status() {
    const mode = typeof this.#draft.mode === "string" ? this.#draft.mode : undefined;
    return {
      phase: this.#phase,
      version: "stratum-installer 0.1.0 (simulated)",
      ...(mode ? { mode } : {}),
      profile: mode ? "hyperconverged" : "single-node",
      hostname: typeof this.#draft.hostname === "string" ? this.#draft.hostname : this.options.name,
      url: "https://127.0.0.1",
      configValid: true,
      attempt: this.#attempt,
      ...(this.#step ? { step: this.#step } : {}),
      ...(this.#startedAt ? { startedAt: this.#startedAt } : {}),
      ...(this.#finishedAt ? { finishedAt: this.#finishedAt } : {}),
      blockers: [],
    };
  }

  #view() {
    return { source: "structured", config: this.#draft, valid: true, errors: [], updatedAt: this.#updatedAt };
  }

  #verdict() {
    return (this.#events.at(-1)?.data as { verdict?: unknown } | undefined)?.verdict;
  }

  #emit(event: Omit<Event, "seq" | "attempt" | "time">): void {
    const stamped = { seq: this.#events.length + 1, attempt: this.#attempt, time: new Date().toISOString(), ...event };
    this.#events.push(stamped);
    if (event.type === "step.started") this.#step = event.step;
    if (event.type === "attempt.finished") {
      this.#phase = "done";
      this.#step = undefined;
      this.#finishedAt = stamped.time;
    }
    for (const listener of this.#listeners) listener(stamped);
  }

  #install(res: ServerResponse): void {
    if (this.#phase === "installing") return problem(res, 409, "INSTALL_RUNNING", `attempt ${this.#attempt} is running`);
    if (this.#phase === "done") return problem(res, 409, "ALREADY_INSTALLED", "the node is installed");
    this.#attempt += 1;
    this.#phase = "installing";
    this.#startedAt = new Date().toISOString();
    this.#events = [];
    const script = attemptScript(this.options.role, this.#attempt, this.options.attemptMs);
    const gap = this.options.attemptMs / script.length;
    let next = 0;
    const tick = () => {
      this.#emit(script[next++]!);
      if (next < script.length) setTimeout(tick, gap);
    };
    tick();
    send(res, 202, { attempt: this.#attempt, phase: "installing", eventsUrl: `${BASE}/install/events?attempt=${this.#attempt}` });
  }

  /** SSE: the events after Last-Event-ID, then live ones; closed after attempt.finished. */
  #stream(req: IncomingMessage, res: ServerResponse, attempt: number): void {
    if (attempt !== this.#attempt || attempt === 0) return problem(res, 404, "NOT_FOUND", `no attempt ${attempt}`);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const frame = (e: Event) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`;
    const after = Number(req.headers["last-event-id"] ?? 0);
    const replay = this.#events.filter((e) => e.seq > after);
    if (replay.length > 0) res.write(replay.map(frame).join(""));
    if (this.#phase !== "installing") return void res.end();
    const listener = (event: Event) => {
      res.write(frame(event));
      if (event.type === "attempt.finished") res.end();
    };
    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), 15_000);
    this.#listeners.add(listener);
    res.on("close", () => {
      this.#listeners.delete(listener);
      clearInterval(heartbeat);
    });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.options.code}`) return problem(res, 401, "UNAUTHORIZED", "no install code, or the wrong one", { "www-authenticate": 'Bearer realm="installer"' });
    const url = new URL(req.url ?? "/", "https://sim");
    const attempt = Number(url.searchParams.get("attempt") ?? this.#attempt);
    const route = `${req.method} ${url.pathname.slice(BASE.length)}`;
    switch (route) {
      case "GET /status":
        return send(res, 200, this.#status());
      case "GET /options":
        return send(res, 200, { modes: MODES, host: { hostname: this.options.name, ...HOST }, release: RELEASE, defaults: { mode: "single-node", hostname: this.options.name, network: { interface: "eno1" } } });
      case "GET /config":
        return send(res, 200, this.#view(), { etag: this.#etag });
      case "POST /config/validate": {
        const draft = (await readBody(req)) as { mode?: string };
        return send(res, 200, { valid: true, errors: [], ...(draft.mode ? { mode: draft.mode } : {}), profile: draft.mode ? "hyperconverged" : "single-node" });
      }
      case "PUT /config": {
        const draft = (await readBody(req)) as Record<string, unknown>;
        const ifMatch = req.headers["if-match"];
        if (ifMatch !== undefined && ifMatch !== this.#etag) return problem(res, 412, "PRECONDITION_FAILED", `If-Match ${ifMatch} is not the draft's ETag ${this.#etag}`);
        if (this.#phase === "installing") return problem(res, 409, "INSTALL_RUNNING", `attempt ${this.#attempt} is running`);
        this.#draft = draft;
        this.#version += 1;
        this.#updatedAt = new Date().toISOString();
        return send(res, 200, this.#view(), { etag: this.#etag });
      }
      case "POST /install":
        return this.#install(res);
      case "GET /install/events":
        if ((req.headers.accept ?? "").includes("text/event-stream")) return this.#stream(req, res, attempt);
        return send(res, 200, { attempt, events: this.#events, finished: this.#phase === "done", more: false });
      case "GET /install/verdict":
        if (attempt === 0 || attempt > this.#attempt) return problem(res, 404, "NOT_FOUND", `no attempt ${attempt}`);
        return this.#phase === "installing" ? problem(res, 409, "INSTALL_RUNNING", `attempt ${attempt} is running`) : send(res, 200, this.#verdict());
      case "GET /install/report":
        if (attempt === 0 || this.#phase === "installing") return problem(res, 404, "NOT_FOUND", `no finished attempt ${attempt}`);
        return send(res, 200, this.#report());
      case "GET /cluster/join-token":
        if (this.options.role !== "init" || this.#phase !== "done") return problem(res, 409, "NOT_INSTALLED", "not an installed init node");
        return send(res, 200, { token: `STRATUM1:${"5a".repeat(32)}:${Buffer.from(`sim-secret-${this.options.code}`).toString("base64url")}`, joinAddress: "10.20.255.250:8443", cluster: String((this.#draft.cluster as { name?: string } | undefined)?.name ?? "sim"), release: RELEASE });
      case "POST /cluster/join-check":
        return send(res, 200, { ok: true, checks: [] });
      default:
        return problem(res, 404, "NOT_FOUND", `${route} is not simulated`);
    }
  }

  #report() {
    const steps = this.#events.filter((e) => e.type === "step.finished").map((e) => ({ step: e.step, state: "succeeded", startedAt: this.#startedAt, finishedAt: e.time }));
    return {
      attempt: this.#attempt,
      kind: "install",
      startedBy: "person",
      state: "succeeded",
      step: "readiness",
      startedAt: this.#startedAt,
      finishedAt: this.#finishedAt,
      verdict: this.#verdict(),
      steps,
      config: { source: "structured", config: this.#draft },
      host: { hostname: this.options.name, ...HOST },
      payloadVersion: RELEASE,
      firstbootTail: this.#events.filter((e) => e.type === "step.log").map((e) => e.message),
      readinessHistory: [{ time: this.#finishedAt, state: "READY" }],
    };
  }
}
