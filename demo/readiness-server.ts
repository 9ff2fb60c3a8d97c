/** A simulated cloud readiness endpoint (SPEC §6) for the demo and tests. */
import type { IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateSelfSignedCert } from "../core/tls.ts";

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

const READY: Readiness = {
  state: "READY",
  detail: "all services up",
  checks: [
    { name: "network", status: "ok", detail: "management network reachable" },
    { name: "ceph", status: "ok", detail: "HEALTH_OK" },
    { name: "images", status: "ok", detail: "12/12 pulled" },
  ],
};

const PROGRESS_STAGES: Readiness[] = [
  {
    state: "BOOTSTRAPPING",
    detail: "bringing up core services",
    checks: [
      { name: "network", status: "ok", detail: "management network reachable" },
      { name: "ceph", status: "pending", detail: "mon quorum forming" },
      { name: "images", status: "pending", detail: "pulling 2/12" },
    ],
  },
  {
    state: "CEPH_BOOTSTRAP",
    detail: "waiting for ceph to become healthy",
    checks: [
      { name: "network", status: "ok", detail: "management network reachable" },
      { name: "ceph", status: "pending", detail: "HEALTH_WARN clock skew" },
      { name: "images", status: "pending", detail: "pulling 7/12" },
    ],
  },
  READY,
];

const NEVER_READY: Readiness = {
  state: "CEPH_BOOTSTRAP",
  detail: "waiting for ceph to become healthy",
  checks: [
    { name: "network", status: "ok", detail: "management network reachable" },
    { name: "ceph", status: "pending", detail: "HEALTH_WARN 3 osds down" },
    { name: "images", status: "ok", detail: "12/12 pulled" },
  ],
};

const UNAVAILABLE: Readiness = { state: "UNAVAILABLE", detail: "control plane API is not answering" };

export interface ReadinessServerOptions {
  /** 0 = any free port. */
  port?: number;
  host?: string;
  scenario?: Scenario;
  /** How long each stage of the "progress" scenario lasts. */
  stageMs?: number;
}

export interface ReadinessServer {
  /** The full readiness URL, e.g. https://127.0.0.1:8443/v1/readiness. */
  url: string;
  port: number;
  setScenario(scenario: Scenario): void;
  close(): Promise<void>;
  /** How many readiness polls were answered. */
  requests(): number;
}

const isScenario = (value: unknown): value is Scenario => SCENARIOS.includes(value as Scenario);

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, limit = 4096): Promise<string> {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new Error(`body over ${limit} bytes`);
  }
  return body;
}

export async function startReadinessServer(opts: ReadinessServerOptions = {}): Promise<ReadinessServer> {
  const host = opts.host ?? "127.0.0.1";
  const stageMs = opts.stageMs ?? 3000;
  let scenario = opts.scenario ?? "progress";
  let firstPollAt: number | undefined;
  let polls = 0;

  const setScenario = (next: Scenario) => {
    scenario = next;
    firstPollAt = undefined;
  };

  const answerPoll = (res: ServerResponse) => {
    polls += 1;
    firstPollAt ??= Date.now();
    switch (scenario) {
      case "progress": {
        const stage = Math.min(Math.floor((Date.now() - firstPollAt) / stageMs), PROGRESS_STAGES.length - 1);
        return sendJson(res, 200, PROGRESS_STAGES[stage]);
      }
      case "ready":
        return sendJson(res, 200, READY);
      case "never":
        return sendJson(res, 200, NEVER_READY);
      case "error":
        return sendJson(res, 503, UNAVAILABLE);
    }
  };

  const switchScenario = async (req: IncomingMessage, res: ServerResponse) => {
    let requested: unknown;
    try {
      requested = (JSON.parse(await readBody(req)) as { scenario?: unknown } | null)?.scenario;
    } catch (error) {
      return sendJson(res, 400, { error: `body is not JSON: ${(error as Error).message}` });
    }
    if (!isScenario(requested)) {
      return sendJson(res, 400, { error: `scenario must be one of ${SCENARIOS.join(", ")}` });
    }
    setScenario(requested);
    sendJson(res, 200, { scenario });
  };

  const { certPem, keyPem } = generateSelfSignedCert({
    commonName: "stratum-readiness-demo",
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1", "::1", ...(isIP(host) ? [host] : [])],
  });
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const path = new URL(req.url ?? "/", "https://localhost").pathname;
    if (req.method === "GET" && path === "/v1/readiness") return answerPoll(res);
    if (req.method === "POST" && path === "/control/scenario") return void switchScenario(req, res);
    sendJson(res, 404, { error: `no route for ${req.method} ${path}` });
  });

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
