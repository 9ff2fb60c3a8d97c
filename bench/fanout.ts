/** SSE fan-out: N subscribers follow one install whose firstboot prints a burst of lines; every one must get every event. */
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makePayload } from "../demo/make-payload.ts";
import { startReadinessServer } from "../demo/readiness-server.ts";
import { startInstaller, stop } from "./lib.ts";

const agent = new Agent({ keepAlive: false, rejectUnauthorized: false, maxSockets: Infinity });

function call(port: number, method: string, path: string, code: string, body?: object): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers: { authorization: `Bearer ${code}`, ...(body ? { "content-type": "application/json" } : {}) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve(text ? JSON.parse(text) : undefined));
    });
    req.on("error", reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

function subscribe(port: number, code: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/v1/installer/install/events?attempt=1", agent, headers: { authorization: `Bearer ${code}`, accept: "text/event-stream" } }, (res) => {
      const seqs: number[] = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end));
          if (id) seqs.push(Number(id[1]));
          buffer = buffer.slice(end + 2);
        }
      });
      res.on("end", () => resolve(seqs));
    });
    req.on("error", reject);
    req.end();
  });
}

export async function benchFanout(node: string, subscribers = 500, lines = 2000) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-fanout-"));
  await makePayload(join(work, "payload"));
  const firstboot = join(work, "firstboot");
  await writeFile(firstboot, `#!/bin/sh\nsleep 1\nfor i in $(seq 1 ${lines}); do echo "line $i"; done\n`);
  await chmod(firstboot, 0o755);
  const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
  const { proc, port, code } = await startInstaller(["--state-dir", join(work, "state"), "--payload", join(work, "payload"), "--firstboot", firstboot, "--node-yaml", join(work, "node.yaml"), "--readiness-url", readiness.url, "--readiness-interval", "0.1"], process.env, node);
  try {
    while ((await call(port, "GET", "/v1/installer/status", code)).blockers) await new Promise((r) => setTimeout(r, 50));
    await call(port, "PUT", "/v1/installer/config", code, {
      mode: "single-node", hostname: "node-01", network: { interface: "eno1", address: "10.20.0.11/24", gateway: "10.20.0.1" },
      admin: { sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example"] },
    });
    await call(port, "POST", "/v1/installer/install", code);
    const t0 = Date.now();
    const results = await Promise.all(Array.from({ length: subscribers }, () => subscribe(port, code)));
    const seconds = (Date.now() - t0) / 1000;
    const last = (await call(port, "GET", "/v1/installer/install/events?attempt=1&after=0", code)).events.length;
    const total = (await call(port, "GET", `/v1/installer/install/verdict`, code)) && last;
    const complete = results.filter((seqs) => seqs.length >= total && seqs.every((s, i) => s === i + 1)).length;
    return { subscribers, complete, eventsEach: Math.max(...results.map((s) => s.length)), seconds };
  } finally {
    await stop(proc);
    await readiness.close();
  }
}
