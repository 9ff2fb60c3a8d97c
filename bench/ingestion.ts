/**
 * Event ingestion: a firstboot that floods N lines; lines/s from firstboot's step.started to
 * step.finished, and /status p99 meanwhile. Baselines in the same run: the same flood read
 * line by line by a bare node process, and /status p99 on the same installer at rest. Then the flood's events are
 * read back page by page (`GET /install/events?after=`): the last pages' time against the first pages'.
 */
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { request, Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { makePayload } from "../demo/make-payload.ts";
import { startReadinessServer } from "../demo/readiness-server.ts";
import { ROOT, median, percentile, startInstaller, stop } from "./lib.ts";

const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

function call(port: number, method: string, path: string, code: string, body?: object): Promise<{ status: number; json: any; ms: number }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers: { authorization: `Bearer ${code}`, ...(body ? { "content-type": "application/json" } : {}) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on("error", reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function statusLatencies(port: number, code: string, until: () => boolean, max = 100_000): Promise<number[]> {
  const latencies: number[] = [];
  while (!until() && latencies.length < max) latencies.push((await call(port, "GET", "/v1/installer/status", code)).ms);
  return latencies;
}

async function bareLinesPerSecond(lines: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  const child = spawn(join(ROOT, "demo/firstboot.sh"), [join(ROOT, "demo/host-facts.json")], { env: { ...process.env, FIRSTBOOT_FLOOD: String(lines) } });
  let count = 0;
  createInterface({ input: child.stdout }).on("line", () => count++);
  await new Promise((r) => child.on("close", r));
  return count / (Number(process.hrtime.bigint() - t0) / 1e9);
}

export async function benchIngestion(node: string, lines = 100_000) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-ingest-"));
  const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
  await makePayload(join(work, "payload"));
  const { proc, port, code } = await startInstaller(
    ["--state-dir", join(work, "state"), "--payload", join(work, "payload"), "--firstboot", join(ROOT, "demo/firstboot.sh"), "--node-yaml", join(work, "node.yaml"), "--readiness-url", readiness.url, "--readiness-interval", "0.1"],
    { ...process.env, FIRSTBOOT_FLOOD: String(lines) },
    node,
  );
  try {
    while ((await call(port, "GET", "/v1/installer/status", code)).json.blockers) await new Promise((r) => setTimeout(r, 50));
    const idle = await statusLatencies(port, code, () => false, 2000);
    await call(port, "PUT", "/v1/installer/config", code, {
      mode: "single-node", hostname: "node-01",
      network: { interface: "eno1", address: "10.20.0.11/24", gateway: "10.20.0.1" },
      admin: { sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example"] },
    });
    let finished = false;
    const started = await call(port, "POST", "/v1/installer/install", code);
    if (started.status !== 202) throw new Error(`install refused: ${JSON.stringify(started.json)}`);
    const watcher = (async () => {
      for (;;) {
        const s = await call(port, "GET", "/v1/installer/status", code);
        if (s.json.phase !== "installing") break;
        await new Promise((r) => setTimeout(r, 100));
      }
      finished = true;
    })();
    const busy = await statusLatencies(port, code, () => finished);
    await watcher;
    let after = 0;
    let firstbootStart = "";
    let firstbootEnd = "";
    let logLines = 0;
    // Each page's time: a page deep in the log should cost what the first one does (a page that read the log from its
    // start would make reading the whole flood back quadratic).
    const pageMs: number[] = [];
    for (;;) {
      const page = await call(port, "GET", `/v1/installer/install/events?attempt=1&after=${after}`, code);
      pageMs.push(page.ms);
      for (const e of page.json.events) {
        if (e.type === "step.started" && e.step === "firstboot") firstbootStart = e.time;
        if (e.type === "step.finished" && e.step === "firstboot") firstbootEnd = e.time;
        if (e.type === "step.log") logLines++;
        after = e.seq;
      }
      if (!page.json.more) break;
    }
    const seconds = (Date.parse(firstbootEnd) - Date.parse(firstbootStart)) / 1000;
    const bare = await bareLinesPerSecond(lines);
    return {
      lines: logLines,
      linesPerSecond: { installer: logLines / seconds, bareReader: bare, ratio: logLines / seconds / bare },
      statusP99Ms: { duringFlood: percentile(busy, 99), atRest: percentile(idle, 99), samplesDuringFlood: busy.length },
      readBack: { pages: pageMs.length, totalMs: pageMs.reduce((a, b) => a + b, 0), firstMs: median(pageMs.slice(0, 10)), lastMs: median(pageMs.slice(-10)) },
    };
  } finally {
    await stop(proc);
    await readiness.close();
  }
}
