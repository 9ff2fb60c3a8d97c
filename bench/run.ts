import { benchFanout } from "./fanout.ts";
import { benchIngestion } from "./ingestion.ts";
import { benchPayload } from "./payload.ts";
import { benchStartup } from "./startup.ts";
import { benchThroughput } from "./throughput.ts";

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 1);

async function main() {
  const only = process.argv[2];
  if (!only || only === "startup") {
    const s = await benchStartup(Number(process.env.BENCH_RUNS ?? 10));
    console.log(`cold start (spawn → first 200, median): installer ${fmt(s.coldStartMs.installer)} ms, bare Hono HTTPS ${fmt(s.coldStartMs.baseline)} ms, ratio ${s.coldStartMs.ratio.toFixed(2)}×`);
    console.log(`idle RSS (median):                      installer ${fmt(s.idleRssMb.installer)} MB, bare Hono HTTPS ${fmt(s.idleRssMb.baseline)} MB, ratio ${s.idleRssMb.ratio.toFixed(2)}×`);
    console.log(`bundle size (minified):                 installer ${fmt(s.bundleKb.installer)} KB, bare Hono ${fmt(s.bundleKb.baseline)} KB`);
  }
  if (!only || only === "throughput") {
    const t = await benchThroughput(Number(process.env.BENCH_SECONDS ?? 4), Number(process.env.BENCH_ROUNDS ?? 5));
    const row = (name: string, f: typeof t.installer) => `  ${name.padEnd(44)} ${fmt(f.rps).padStart(8)} req/s  p99 ${f.p99} ms  (rounds: ${f.rounds.join(", ")}; errors ${f.errors})`;
    console.log(`GET /status over HTTPS, 50 connections, ${t.rounds} rounds × ${t.seconds} s in rotating order (medians):`);
    console.log(row("installer GET /v1/installer/status", t.installer));
    console.log(row("bare Hono HTTPS hello-world", t.baseline));
    console.log(row("bare Hono HTTPS, the installer's reply bytes", t.sameReply));
    console.log(`  vs bare Hono: throughput ${t.rpsRatio.toFixed(2)}×, p99 ${t.p99Ratio.toFixed(2)}×`);
    console.log(`  vs bare Hono with the same reply: throughput ${t.vsSameReply.rps.toFixed(2)}×, p99 ${t.vsSameReply.p99.toFixed(2)}×`);
    console.log(`  the reply's own cost (same-reply Hono vs hello-world): throughput ${t.replyCost.rps.toFixed(2)}×, p99 ${t.replyCost.p99.toFixed(2)}×`);
  }
  if (!only || only === "ingestion") {
    const i = await benchIngestion(Number(process.env.BENCH_LINES ?? 100_000));
    console.log(`event ingestion (${i.lines} firstboot lines): installer ${fmt(i.linesPerSecond.installer)} lines/s, bare line reader ${fmt(i.linesPerSecond.bareReader)} lines/s, ratio ${i.linesPerSecond.ratio.toFixed(2)}×`);
    console.log(`/status p99 during the flood: ${fmt(i.statusP99Ms.duringFlood)} ms (${i.statusP99Ms.samplesDuringFlood} requests), at rest ${fmt(i.statusP99Ms.atRest)} ms`);
  }
  if (!only || only === "fanout") {
    const f = await benchFanout(Number(process.env.BENCH_SUBSCRIBERS ?? 500));
    console.log(`SSE fan-out: ${f.complete} of ${f.subscribers} subscribers received every event (${f.eventsEach} events each) in ${fmt(f.seconds)} s`);
  }
  if (!only || only === "payload") {
    const p = await benchPayload(Number(process.env.BENCH_PAYLOAD_GIB ?? 2) * 1024 ** 3);
    console.log(`payload verification (${p.gib} GiB): installer ${fmt(p.installerMBps)} MB/s, sha256sum ${fmt(p.sha256sumMBps)} MB/s, ratio ${p.ratio.toFixed(2)}×`);
    console.log(`/status while verifying: p50 ${fmt(p.statusDuringVerify.p50)} ms, p99 ${fmt(p.statusDuringVerify.p99)} ms (${p.statusDuringVerify.requests} requests, ${p.statusDuringVerify.verifyingSeen} saw PAYLOAD_VERIFYING)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
