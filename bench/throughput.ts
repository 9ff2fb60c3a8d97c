/**
 * GET /v1/installer/status over HTTPS at 50 connections (autocannon) against two bare Hono HTTPS
 * servers in the same run: a hello-world (the baseline) and one answering with the
 * installer's own reply bytes (same headers, same body: what the reply costs without the
 * installer's code). The three are loaded in turns, ROUNDS times in rotating order, so a slow
 * spell of the machine hits all three; each figure is the median over the rounds.
 */
import autocannon from "autocannon";
import { mkdtemp, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateLayout } from "../core/state/layout.ts";
import { BUNDLE, ROOT, bundleBaseline, median, stop, timeToFirst200 } from "./lib.ts";

/** Headers Node writes itself; the dressed baseline gets them from Node too. */
const NODE_OWN = new Set(["date", "connection", "keep-alive", "content-length", "content-type", "transfer-encoding"]);

function load(url: string, headers: Record<string, string>, seconds: number) {
  return autocannon({ url, connections: 50, duration: seconds, headers });
}

function fetchReply(url: string, headers: Record<string, string>): Promise<{ headers: [string, string][]; body: unknown }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, rejectUnauthorized: false }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () =>
        resolve({
          headers: Object.entries(res.headers).filter((e): e is [string, string] => typeof e[1] === "string" && !NODE_OWN.has(e[0])),
          body: JSON.parse(text),
        }),
      );
    })
      .on("error", reject)
      .end();
  });
}

interface Target {
  url: string;
  headers: Record<string, string>;
  rps: number[];
  p99: number[];
  errors: number;
}

export async function benchThroughput(node: string, seconds = 4, rounds = 5) {
  const work = await mkdtemp(join(tmpdir(), "stratum-bench-rps-"));
  const baseline = join(work, "baseline.cjs");
  await bundleBaseline(baseline);
  const state = join(work, "state");
  const installer = await timeToFirst200(
    [BUNDLE, "--listen", "127.0.0.1:0", "--state-dir", state, "--host-facts", join(ROOT, "demo/host-facts.json")],
    "/healthz",
    () => ({}),
    node,
  );
  const code = /Install code:\s+(\S+)/.exec(installer.stdout)![1]!;
  const statusUrl = `https://127.0.0.1:${installer.port}/v1/installer/status`;
  const auth = { authorization: `Bearer ${code}` };
  const replyFile = join(work, "reply.json");
  await writeFile(replyFile, JSON.stringify(await fetchReply(statusUrl, auth)));
  const { tlsCert, tlsKey } = stateLayout(state);
  const tls = [tlsCert, tlsKey];
  const bare = await timeToFirst200([baseline, ...tls], "/", () => ({}), node);
  const dressed = await timeToFirst200([baseline, ...tls, "--dressed", replyFile], "/", () => ({}), node);

  const targets: Target[] = [
    { url: statusUrl, headers: auth, rps: [], p99: [], errors: 0 },
    { url: `https://127.0.0.1:${bare.port}/`, headers: {}, rps: [], p99: [], errors: 0 },
    { url: `https://127.0.0.1:${dressed.port}/`, headers: {}, rps: [], p99: [], errors: 0 },
  ];
  for (const t of targets) await load(t.url, t.headers, 1); // warm-up, not counted
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(r + i) % targets.length]!;
      const result = await load(t.url, t.headers, seconds);
      t.rps.push(result.requests.average);
      t.p99.push(result.latency.p99);
      t.errors += result.errors + result.non2xx;
    }
  }
  await Promise.all([stop(installer.proc), stop(bare.proc), stop(dressed.proc)]);

  const [ours, plain, same] = targets as [Target, Target, Target];
  const ratios = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));
  const figures = (t: Target) => ({ rps: median(t.rps), p99: median(t.p99), errors: t.errors, rounds: t.rps.map(Math.round) });
  return {
    seconds,
    rounds,
    installer: figures(ours),
    baseline: figures(plain),
    sameReply: figures(same),
    rpsRatio: ratios(ours.rps, plain.rps),
    p99Ratio: ratios(ours.p99, plain.p99),
    vsSameReply: { rps: ratios(ours.rps, same.rps), p99: ratios(ours.p99, same.p99) },
    replyCost: { rps: ratios(same.rps, plain.rps), p99: ratios(same.p99, plain.p99) },
  };
}
