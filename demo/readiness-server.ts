/**
 * A simulated cloud API (SPEC §6) for the demo and tests: the readiness endpoint, and the founding node's
 * `GET /v1/cluster/join-info` and `POST /v1/cluster/join-check` that joining nodes check before they install.
 */
import { createHash, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { isValidProof } from "../core/cluster/join-proof.ts";
import { generateSelfSignedCert } from "../core/access/tls.ts";

export const SCENARIOS = ["progress", "ready", "never", "error"] as const;
export type Scenario = (typeof SCENARIOS)[number];

interface Check {
  name: string;
  status: "ok" | "pending";
  detail: string;
}

interface Readiness {
  state: string;
  detail?: string;
  checks?: Check[];
}

/** A check's state: ok, or still pending, with what it says. */
type CheckState = Omit<Check, "name">;
const ok = (detail: string): CheckState => ({ status: "ok", detail });
const pending = (detail: string): CheckState => ({ status: "pending", detail });

/** A readiness answer: the management network is up in each; ceph and the images are where the stage has them. */
const readiness = (state: string, detail: string, ceph: CheckState, images: CheckState): Readiness => ({
  state,
  detail,
  checks: [{ name: "network", ...ok("management network reachable") }, { name: "ceph", ...ceph }, { name: "images", ...images }],
});

const CEPH_WAIT = "waiting for ceph to become healthy";

const READY = readiness("READY", "all services up", ok("HEALTH_OK"), ok("12/12 pulled"));

const PROGRESS_STAGES: Readiness[] = [
  readiness("BOOTSTRAPPING", "bringing up core services", pending("mon quorum forming"), pending("pulling 2/12")),
  readiness("CEPH_BOOTSTRAP", CEPH_WAIT, pending("HEALTH_WARN clock skew"), pending("pulling 7/12")),
  READY,
];

const NEVER_READY = readiness("CEPH_BOOTSTRAP", CEPH_WAIT, pending("HEALTH_WARN 3 osds down"), ok("12/12 pulled"));

const UNAVAILABLE: Readiness = { state: "UNAVAILABLE", detail: "control plane API is not answering" };

export interface ReadinessServerOptions {
  /** 0 = any free port. */
  port?: number;
  host?: string;
  scenario?: Scenario;
  /** How long each stage of the "progress" scenario lasts at least; a stage moves on only at a poll, so every poller sees every stage. */
  stageMs?: number;
  /** The cluster this cloud founded, given outright (tests)… */
  cluster?: Founding;
  /** …or read on each request from the node.yaml it was founded with (`cluster.name`, `cluster.join_token`), once firstboot wrote it. */
  foundedWith?: string;
  /** The release join-info reports; default make-payload's default, 2026.11.0. */
  release?: string;
  /** Added to this cloud's clock in join-info, to play a skewed cluster. */
  clockOffsetMs?: number;
  /** Its certificate and key; default a new self-signed pair for the host. */
  tls?: { certPem: string; keyPem: string };
}

interface Founding {
  name: string;
  secret: string;
}

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ReadinessServer {
  /** The full readiness URL, e.g. https://127.0.0.1:8443/v1/readiness. */
  url: string;
  port: number;
  setScenario(scenario: Scenario): void;
  close(): Promise<void>;
  /** How many readiness polls were answered. */
  requests(): number;
  /** SHA-256 of its certificate (DER), lowercase hex: the fingerprint a join token pins. */
  certSha256: string;
  /** TCP connections accepted, whether or not a request followed. */
  connections(): number;
  /** Every request received (the last 500), with its headers and body. */
  received(): ReceivedRequest[];
}

const isScenario = (value: unknown): value is Scenario => SCENARIOS.includes(value as Scenario);

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

const MAX_BODY = 64 * 1024;
const MAX_RECEIVED = 500;
const NONCE = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url
const MAX_NONCES = 10_000;

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > MAX_BODY) return undefined;
  }
  return body;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

async function foundingIn(nodeYaml: string): Promise<Founding | undefined> {
  const text = await readFile(nodeYaml, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  const cluster = (text === undefined ? undefined : (parseYaml(text) as { cluster?: { name?: unknown; join_token?: unknown } } | null)?.cluster) ?? {};
  const { name, join_token: secret } = cluster;
  return typeof name === "string" && typeof secret === "string" ? { name, secret } : undefined;
}

export async function startReadinessServer(opts: ReadinessServerOptions = {}): Promise<ReadinessServer> {
  const host = opts.host ?? "127.0.0.1";
  const stageMs = opts.stageMs ?? 3000;
  let scenario = opts.scenario ?? "progress";
  let progress: { stage: number; since: number } | undefined;
  let polls = 0;

  const setScenario = (next: Scenario) => {
    scenario = next;
    progress = undefined;
  };

  const answerPoll = (res: ServerResponse) => {
    polls += 1;
    switch (scenario) {
      case "progress": {
        // One stage a poll at most: a poller slowed down (a busy machine) still sees each stage, in order.
        const now = Date.now();
        if (!progress) progress = { stage: 0, since: now };
        else if (progress.stage < PROGRESS_STAGES.length - 1 && now - progress.since >= stageMs) progress = { stage: progress.stage + 1, since: now };
        return sendJson(res, 200, PROGRESS_STAGES[progress.stage]);
      }
      case "ready":
        return sendJson(res, 200, READY);
      case "never":
        return sendJson(res, 200, NEVER_READY);
      case "error":
        return sendJson(res, 503, UNAVAILABLE);
    }
  };

  const switchScenario = (body: string, res: ServerResponse) => {
    const requested = (parseJson(body) as { scenario?: unknown } | undefined)?.scenario;
    if (!isScenario(requested)) {
      return sendJson(res, 400, { error: `scenario must be one of ${SCENARIOS.join(", ")}` });
    }
    setScenario(requested);
    sendJson(res, 200, { scenario });
  };

  const release = opts.release ?? "2026.11.0";
  const founding = async () => opts.cluster ?? (opts.foundedWith === undefined ? undefined : await foundingIn(opts.foundedWith));
  const notFounded = (res: ServerResponse) =>
    sendJson(res, 503, { error: `this cloud has founded no cluster yet${opts.foundedWith ? ` (no cluster.name and cluster.join_token in ${opts.foundedWith})` : ""}: install the init node first` });

  const answerJoinInfo = async (res: ServerResponse) => {
    const cluster = await founding();
    if (!cluster) return notFounded(res);
    sendJson(res, 200, { cluster: cluster.name, release, time: new Date(Date.now() + (opts.clockOffsetMs ?? 0)).toISOString() });
  };

  const seenNonces = new Set<string>();
  const answerJoinCheck = async (body: string, res: ServerResponse) => {
    const cluster = await founding();
    if (!cluster) return notFounded(res);
    const { nonce, proof } = (parseJson(body) ?? {}) as { nonce?: unknown; proof?: unknown };
    if (typeof nonce !== "string" || !NONCE.test(nonce) || typeof proof !== "string") {
      return sendJson(res, 400, { error: "expected {nonce: 32 random bytes in base64url, proof: hex HMAC-SHA256 of the nonce with the secret}" });
    }
    // A proof seen once is refused after: whoever recorded one cannot replay it.
    if (seenNonces.has(nonce) || !isValidProof(cluster.secret, nonce, proof)) return sendJson(res, 403, { error: "the proof does not match this cluster's secret" });
    if (seenNonces.size >= MAX_NONCES) seenNonces.clear();
    seenNonces.add(nonce);
    res.writeHead(204).end();
  };

  let connections = 0;
  const received: ReceivedRequest[] = [];
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "https://localhost").pathname;
    const body = await readBody(req);
    received.push({ method: req.method ?? "", path, headers: req.headers, body: body ?? "" });
    if (received.length > MAX_RECEIVED) received.shift();
    if (body === undefined) return sendJson(res, 413, { error: `body over ${MAX_BODY} bytes` });
    if (req.method === "GET" && path === "/v1/readiness") return answerPoll(res);
    if (req.method === "GET" && path === "/v1/cluster/join-info") return answerJoinInfo(res);
    if (req.method === "POST" && path === "/v1/cluster/join-check") return answerJoinCheck(body, res);
    if (req.method === "POST" && path === "/control/scenario") return switchScenario(body, res);
    sendJson(res, 404, { error: `no route for ${req.method} ${path}` });
  };

  const { certPem, keyPem } =
    opts.tls ??
    generateSelfSignedCert({
      commonName: "stratum-readiness-demo",
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1", "::1", ...(isIP(host) ? [host] : [])],
    });
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    route(req, res).catch((error: Error) => sendJson(res, 500, { error: error.message }));
  });
  server.on("connection", () => (connections += 1));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;

  return {
    url: `https://${urlHost}:${port}/v1/readiness`,
    port,
    setScenario,
    requests: () => polls,
    certSha256: createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex"),
    connections: () => connections,
    received: () => [...received],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function runAsScript(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8443" },
      host: { type: "string", default: "127.0.0.1" },
      scenario: { type: "string", default: "progress" },
      "stage-ms": { type: "string", default: "3000" },
      "founded-with": { type: "string" },
      release: { type: "string" },
    },
  });
  if (!isScenario(values.scenario)) {
    console.error(`--scenario must be one of ${SCENARIOS.join(", ")}`);
    process.exit(2);
  }
  const server = await startReadinessServer({
    port: Number(values.port),
    host: values.host,
    scenario: values.scenario,
    stageMs: Number(values["stage-ms"]),
    foundedWith: values["founded-with"],
    release: values.release,
  });
  console.log(`readiness endpoint ${server.url} (scenario ${values.scenario})`);
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void server.close());
}

// The file-name test keeps a bundle that imports this module (its own URL is argv[1] too) from starting it.
const scriptPath = process.argv[1];
if (scriptPath && /readiness-server\.[jt]s$/.test(scriptPath) && import.meta.url === pathToFileURL(scriptPath).href) {
  runAsScript().catch((error: Error) => {
    console.error(`readiness server: ${error.message}`);
    process.exit(1);
  });
}
