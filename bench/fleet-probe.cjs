// Preloaded into a measured process (NODE_OPTIONS=--require bench/fleet-probe.cjs, FLEET_PROBE_OUT=file) by
// bench/fleet-driver.ts: its CPU time and peak RSS (process.resourceUsage), its open sockets and fds (sampled from
// /proc/self/fd), and each HTTP(S) request it made, from the request's start to the answer's headers
// (node:diagnostics_channel http.client.request.start / http.client.response.finish, Node ≥ 18.17); event streams
// (text/event-stream) are left out. Written as JSON to FLEET_PROBE_OUT every second and at exit (a kill -9 leaves
// the last second's). Public Node mechanisms only: nothing of the measured program is patched.
"use strict";
const dc = require("node:diagnostics_channel");
const { readFileSync, readdirSync, readlinkSync, writeFileSync } = require("node:fs");

const out = process.env.FLEET_PROBE_OUT;
// The measured process only, not what it spawns (they inherit NODE_OPTIONS).
delete process.env.FLEET_PROBE_OUT;

if (out) {
  const SAMPLE_MS = Number(process.env.FLEET_PROBE_SAMPLE_MS || 250);
  const started = new WeakMap();
  const origins = {};
  let requests = 0;
  let maxOpenSockets = 0;
  let maxOpenFds = 0;
  let probeMs = 0;
  // The probe's own cost as the main thread's CPU (/proc/thread-self/schedstat, ns on the CPU): its reads run on that
  // thread, and wall time would count the moments a busy machine kept it waiting. performance.now() without /proc.
  const threadNs = () => {
    try {
      return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]);
    } catch {
      return NaN;
    }
  };
  const own = (work) => {
    const ns = threadNs();
    const t0 = performance.now();
    try {
      return work();
    } finally {
      const spent = (threadNs() - ns) / 1e6;
      probeMs += Number.isNaN(spent) ? performance.now() - t0 : spent;
    }
  };
  let samples = 0;

  const originOf = (request) => `${request.protocol || "http:"}//${request.getHeader("host") || request.host}`;
  let firstRequestMs = null;
  const onStart = ({ request }) => {
    const now = performance.now();
    firstRequestMs ??= now;
    started.set(request, now);
  };
  const onHeaders = ({ request, response }) => {
    const t0 = started.get(request);
    if (t0 === undefined || String(response.headers["content-type"] || "").startsWith("text/event-stream")) return;
    const ms = performance.now() - t0;
    const origin = originOf(request);
    const path = String(request.path).slice(0, 200);
    requests += 1;
    const o = (origins[origin] ??= { requests: 0, slowest: { origin, path, ms } });
    o.requests += 1;
    if (ms >= o.slowest.ms) o.slowest = { origin, path, ms };
  };
  // Held here: a channel nobody references may be collected with its subscribers on older Node.
  const channels = [dc.channel("http.client.request.start"), dc.channel("http.client.response.finish")];
  channels[0].subscribe(onStart);
  channels[1].subscribe(onHeaders);

  const sample = () => own(() => {
    let sockets = 0;
    let fds = 0;
    try {
      for (const fd of readdirSync("/proc/self/fd")) {
        fds += 1;
        try {
          if (readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) sockets += 1;
        } catch {
          // closed between the listing and the link
        }
      }
    } catch {
      // no /proc: the counts stay 0
    }
    maxOpenSockets = Math.max(maxOpenSockets, sockets);
    maxOpenFds = Math.max(maxOpenFds, fds);
  });
  // CPU ms by thread name (/proc/self/task): the main thread's JavaScript beside V8's helpers (GC, compilers) and libuv's pool.
  const TICK_MS = 10; // USER_HZ is 100 on Linux
  const threadCpu = () => {
    const byName = {};
    try {
      for (const tid of readdirSync("/proc/self/task")) {
        try {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
          const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
          const name = tid === String(process.pid) ? "main" : readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
          byName[name] = (byName[name] || 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
        } catch {
          // the thread ended between the listing and the read
        }
      }
    } catch {
      // no /proc
    }
    return byName;
  };
  const report = () => {
    // Read first, so that its own time is in this report's probeMs.
    const threadCpuMs = own(threadCpu);
    const usage = process.resourceUsage();
    const all = Object.values(origins).map((o) => o.slowest);
    const slowestRequest = all.reduce((a, b) => (a && a.ms >= b.ms ? a : b), null);
    // Written after `usage` was read: its cost is in the next report's cpuMs, and so in that report's probeMs.
    own(() => {
      const text = JSON.stringify({
        pid: process.pid,
        channels: channels.map((c) => c.name),
        peakRssKiB: usage.maxRSS,
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        systemCpuMs: usage.systemCPUTime / 1000,
        firstRequestMs,
        maxOpenSockets,
        maxOpenFds,
        requests,
        slowestRequest,
        byOrigin: origins,
        probeMs,
        samples,
        threadCpuMs,
      });
      try {
        writeFileSync(out, text);
      } catch {
        // the reader says the report is missing
      }
    });
  };
  const timer = setInterval(() => {
    sample();
    samples += 1;
    if (samples % Math.max(1, Math.round(1000 / SAMPLE_MS)) === 0) report();
  }, SAMPLE_MS);
  timer.unref();
  sample();
  process.on("exit", () => {
    sample();
    report();
  });
}
