/**
 * The support bundle of a node with 100 attempts of 10,000 events each (SPEC §11): made by the CLI from the state
 * dir, its wall time, peak RSS and size; then by a running service over GET /support-bundle while /status is asked
 * every 50 ms, its wall time and /status's slowest answer. Run: npm run build && node --import tsx bench/support-bundle.ts
 * (ATTEMPTS and EVENTS change the state dir; BENCH_NODE runs the CLI on another Node).
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:https";
import { mkdir, open, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makePayload } from "../demo/make-payload.ts";
import { stateLayout } from "../core/state/layout.ts";
import { readBundle } from "../core/support/index.ts";
import type { AttemptRecord, StoreData } from "../core/state/records.ts";
import { harness, tempDir } from "../test/helpers/installer.ts";
import { PROBE } from "./fleet-driver.ts";
import { BUNDLE, ROOT } from "./lib.ts";

const ATTEMPTS = Number(process.env.ATTEMPTS ?? 100);
const EVENTS = Number(process.env.EVENTS ?? 10_000);

async function fillStateDir(dir: string): Promise<number> {
  const layout = stateLayout(dir);
  await mkdir(layout.events, { recursive: true });
  const attempts: AttemptRecord[] = [];
  let bytes = 0;
  for (let a = 1; a <= ATTEMPTS; a++) {
    const at = new Date(Date.UTC(2026, 11, 1) + a * 60_000).toISOString();
    attempts.push({
      attempt: a, kind: "install", startedBy: "person", state: "failed", step: "firstboot", startedAt: at, finishedAt: at,
      steps: [{ step: "firstboot", state: "failed", startedAt: at, finishedAt: at, message: "firstboot exited 1" }],
      verdict: { attempt: a, kind: "install", outcome: "failed", step: "firstboot", code: "FIRSTBOOT_FAILED", message: "firstboot exited 1", next: "retryInstall" },
      config: { source: "structured", config: { mode: "single-node" } }, payloadVersion: "2026.11", firstbootTail: ["error: disk not found"], readinessHistory: [],
    });
    const file = await open(layout.eventsOf(a), "w");
    const lines: string[] = [];
    for (let seq = 1; seq <= EVENTS; seq++) {
      lines.push(JSON.stringify({ seq, attempt: a, time: at, type: "step.log", step: "firstboot", level: "info", message: `[  ${seq}.000000] firstboot: configuring ceph osd.${seq % 12} on /dev/disk/by-id/wwn-0x5002538f4312abcd (pass ${seq})` }));
      if (lines.length === 1000) {
        const chunk = `${lines.join("\n")}\n`;
        bytes += Buffer.byteLength(chunk);
        await file.write(chunk);
        lines.length = 0;
      }
    }
    if (lines.length > 0) await file.write(`${lines.join("\n")}\n`);
    await file.close();
  }
  const store: StoreData = {
    schemaVersion: 1,
    draft: { source: "structured", config: { mode: "single-node", admin: { passwordHash: `$6$rounds=656000$benchsalt$${"Hb".repeat(43)}` } }, revision: 1, updatedAt: null },
    attempts,
    lockout: { addresses: {}, globalFailures: [] },
  };
  await writeFile(layout.store, JSON.stringify(store));
  return bytes;
}

function cliBundle(stateDir: string, out: string, payload: string): Promise<{ ms: number; peakRssKiB: number }> {
  const started = performance.now();
  const probeOut = `${out}.probe.json`;
  const proc = spawn(process.env.BENCH_NODE ?? process.execPath, ["--require", PROBE, BUNDLE, "support-bundle", "--state-dir", stateDir, "-o", out, "--payload", payload, "--host-facts", join(ROOT, "demo/host-facts.json")], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FLEET_PROBE_OUT: probeOut },
  });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) =>
    proc.on("exit", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`support-bundle exited ${code}: ${stderr}`));
      readFile(probeOut, "utf8").then((text) => resolve({ ms, peakRssKiB: (JSON.parse(text) as { peakRssKiB: number }).peakRssKiB }), reject);
    }),
  );
}

const folder = await tempDir("stratum-bench-bundle-");
const stateDir = join(folder, "state");
const payload = join(folder, "payload");
await makePayload(payload);
const eventBytes = await fillStateDir(stateDir);
console.log(`state dir: ${ATTEMPTS} attempts × ${EVENTS} events, ${(eventBytes / 1024 ** 2).toFixed(0)} MiB of events`);

const out = join(folder, "bundle.tar.gz");
const cli = await cliBundle(stateDir, out, payload);
console.log(`CLI: ${(cli.ms / 1000).toFixed(2)} s, peak RSS ${(cli.peakRssKiB / 1024).toFixed(0)} MiB, bundle ${((await stat(out)).size / 1024 ** 2).toFixed(2)} MiB`);
const cuts = (await readBundle(out)).manifest?.leftOut.filter((l) => l.events) ?? [];
const whole = cuts.filter((c) => c.events!.leftOut === c.events!.of).length;
console.log(`events left out: all of ${whole} attempts' and part of ${cuts.length - whole}'s (the oldest)`);

const lab = harness();
const installer = await lab.start({ stateDir, payload });
const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });
/** A GET's wall time and byte count, the body counted and dropped. */
const get = (path: string) =>
  new Promise<{ ms: number; bytes: number; status: number }>((resolve, reject) => {
    const t0 = performance.now();
    request(`https://127.0.0.1:${installer.port}${path}`, { agent, headers: { authorization: `Bearer ${installer.code}` } }, (res) => {
      let bytes = 0;
      res.on("data", (d: Buffer) => (bytes += d.length));
      res.on("end", () => resolve({ ms: performance.now() - t0, bytes, status: res.statusCode ?? 0 }));
    }).on("error", reject).end();
  });
await get("/v1/installer/status");
const status: number[] = [];
let streaming = true;
const poll = (async () => {
  while (streaming) {
    const answer = await get("/v1/installer/status");
    if (answer.status !== 200) throw new Error(`/status answered ${answer.status}`);
    status.push(answer.ms);
    await new Promise((r) => setTimeout(r, 50));
  }
})();
const api = await get("/v1/installer/support-bundle");
streaming = false;
await poll;
console.log(`API: ${(api.ms / 1000).toFixed(2)} s, ${(api.bytes / 1024 ** 2).toFixed(2)} MiB (status ${api.status}); /status answered ${status.length} times meanwhile, slowest ${Math.max(...status).toFixed(0)} ms`);
await installer.kill9();
await rm(folder, { recursive: true, force: true });
process.exit(0);
