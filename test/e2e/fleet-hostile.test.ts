/**
 * Issue 23 item 2: the fleet trusts no byte a node sends. Each node's real installer sits behind a proxy of its
 * own certificate (the plan pins the proxy): the proxy records every request and answers the install itself
 * (POST /install, its events, its verdict and report), as a node would, or lies where a test tells it to. The installers
 * behind answer what the fleet reads first (status, options, the draft) and are never installed, so every
 * run starts from the same nodes.
 */
import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { readFile, rm, writeFile } from "node:fs/promises";
import { type IncomingMessage, type ServerResponse } from "node:http";
import { createServer, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { type FleetRig, type RigNode, startRig } from "../helpers/fleet.ts";
import { attemptReport } from "../helpers/fake-node.ts";
import { harness, tempDir } from "../helpers/installer.ts";

const lab = harness();

const BASE = "/v1/installer";
/** Escape sequences a terminal obeys: a window title (OSC … BEL), clear screen, a cursor report, colours, a C1 CSI, DEL. */
const EVIL = "\x1b]0;pwned\x07 \x1b[2J \x1b[6n \x1b[31mred\x1b[0m \x9b6n \x7f";
/** Any control character but the newline that ends a line. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;
const TOKEN = { token: `STRATUM1:${"ab".repeat(32)}:${"s".repeat(43)}`, joinAddress: "10.20.0.10:8443", cluster: "lab-1", release: "2026.11.0" };

type Json = Record<string, unknown>;

/** How one proxied node answers a request; false hands it to the proxy's honest self. */
type Lie = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

interface Proxy {
  node: RigNode;
  url: string;
  pin: string;
  /** "METHOD path" of every request that reached it. */
  seen: string[];
  lie?: Lie;
  /** The verdict its fake install ends with. */
  verdict: Json;
}

const send = (res: ServerResponse, status: number, body: unknown, type = "application/json") => res.writeHead(status, { "content-type": type }).end(JSON.stringify(body));

function problem(status: number, code: string, detail: string, extra: Json = {}): Json {
  return { type: "about:blank", title: "refused", status, code, detail, requestId: "r1", ...extra };
}

function verdict(outcome: "succeeded" | "failed", message: string): Json {
  return { attempt: 1, kind: "install", outcome, step: outcome === "succeeded" ? "readiness" : "firstboot", code: outcome === "succeeded" ? null : "FIRSTBOOT_FAILED", message, next: outcome === "succeeded" ? "none" : "retryInstall" };
}

function event(seq: number, type: string, message: string, data?: Json): Json {
  return { seq, attempt: 1, time: new Date().toISOString(), type, ...(type === "step.log" ? { step: "firstboot" } : {}), level: "info", message, ...(data ? { data } : {}) };
}

/** A whole attempt as its installer streams it, ending with attempt.finished. */
function attemptEvents(proxy: Proxy, message = "firstboot: starting services"): Json[] {
  return [event(1, "attempt.started", "install started"), event(2, "step.log", message), event(3, "attempt.finished", String(proxy.verdict.message), { verdict: proxy.verdict })];
}

const sse = (events: Json[]) => events.map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** Writes `chunk` over and over for as long as the other end reads. */
function flood(res: ServerResponse, chunk: string): void {
  const block = chunk.repeat(Math.ceil(65_536 / chunk.length));
  const pump = () => {
    while (!res.destroyed && res.write(block));
    if (!res.destroyed) res.once("drain", pump);
  };
  pump();
}

function openSse(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
}

/** The install as a node does it: accepted, its events, its verdict; the rest is the real installer's answer. */
function honest(proxy: Proxy, req: IncomingMessage, res: ServerResponse): boolean {
  const path = req.url!.replace(/\?.*/, "");
  if (req.method === "POST" && path === `${BASE}/install`) return void send(res, 202, { attempt: 1, phase: "installing", eventsUrl: `${BASE}/install/events?attempt=1` }), true;
  if (path === `${BASE}/install/events`) {
    const after = Number(req.headers["last-event-id"] ?? 0);
    openSse(res);
    res.end(sse(attemptEvents(proxy).filter((e) => Number(e.seq) > after)));
    return true;
  }
  if (path === `${BASE}/install/verdict`) return void send(res, 200, proxy.verdict), true;
  if (path === `${BASE}/install/report`) return void send(res, 200, attemptReport(proxy.verdict)), true;
  if (path === `${BASE}/cluster/join-token`) return void send(res, 200, TOKEN), true;
  return false;
}

function forward(proxy: Proxy, req: IncomingMessage, res: ServerResponse, rewrite?: (body: Json) => Json): void {
  const upstream = httpsRequest({ host: "127.0.0.1", port: proxy.node.installer.port, method: req.method, path: req.url, headers: req.headers, rejectUnauthorized: false }, async (answer) => {
    if (!rewrite) {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of answer) chunks.push(chunk as Buffer);
    const { "content-length": _, ...headers } = answer.headers;
    res.writeHead(answer.statusCode!, headers).end(JSON.stringify(rewrite(JSON.parse(Buffer.concat(chunks).toString()))));
  });
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}

/** The real answer to a GET, changed by `rewrite` before it goes on. */
const rewritten = (proxy: Proxy, path: string, rewrite: (body: Json) => Json): Lie => (req, res) => {
  if (req.method !== "GET" || req.url!.replace(/\?.*/, "") !== `${BASE}${path}`) return false;
  forward(proxy, req, res, rewrite);
  return true;
};

async function startProxy(node: RigNode): Promise<Proxy> {
  const { certPem, keyPem } = generateSelfSignedCert({ commonName: "liar", dnsNames: [], ipAddresses: ["127.0.0.1"] });
  const proxy: Proxy = { node, url: "", pin: createHash("sha256").update(new X509Certificate(certPem).raw).digest("hex"), seen: [], verdict: verdict("succeeded", "installed") };
  const server = createServer({ cert: certPem, key: keyPem }, async (req, res) => {
    proxy.seen.push(`${req.method} ${req.url}`);
    res.on("error", () => undefined);
    if ((await proxy.lie?.(req, res)) || honest(proxy, req, res)) return;
    forward(proxy, req, res);
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  lab.defer(() => {
    server.closeAllConnections();
    server.close();
  });
  proxy.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The fleet process's peak resident set (VmHWM), MiB. */
  peakMiB: number;
  ms: number;
}

/** Bounds a hang only: a fleet that gives up on a lying node does so in seconds. */
const HANG_MS = 60_000;

const HWM = /^VmHWM:\s+(\d+) kB/m;

/** Preloaded into the fleet (NODE_OPTIONS): its peak RSS as it exits, written where FLEET_HWM_FILE says. */
const AT_EXIT = `const fs = require("node:fs");
process.on("exit", () => fs.writeFileSync(process.env.FLEET_HWM_FILE, ${HWM}.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]));
`;

async function peakRss(pid: number): Promise<number> {
  const kib = HWM.exec(await readFile(`/proc/${pid}/status`, "utf8").catch(() => ""))?.[1];
  return kib === undefined ? 0 : Number(kib) / 1024;
}

let rig: FleetRig;
let proxies: Proxy[];

/**
 * `fleet PLAN` against the proxies, with a state file of its own; its peak RSS as it exits, or as last polled
 * when it had to be killed.
 */
async function fleet(...args: string[]): Promise<Run> {
  const folder = await tempDir("stratum-fleet-hostile-run-");
  lab.defer(() => rm(folder, { recursive: true, force: true }));
  rig.env.FLEET_HWM_FILE = join(folder, "hwm");
  const started = Date.now();
  const running = rig.spawnFleet(["--state", join(folder, "state.json"), ...args]);
  const killer = setTimeout(() => running.proc.kill("SIGKILL"), HANG_MS);
  let polled = 0;
  const poll = setInterval(async () => (polled = Math.max(polled, await peakRss(running.proc.pid!))), 100);
  const result = await running.done;
  clearInterval(poll);
  clearTimeout(killer);
  const atExit = Number(await readFile(rig.env.FLEET_HWM_FILE, "utf8").catch(() => "0")) / 1024;
  return { ...result, peakMiB: Math.max(polled, atExit), ms: Date.now() - started };
}

const named = (name: string) => proxies.find((p) => p.node.name === name)!;
const changing = (seen: string[]) => seen.filter((s) => /^(PUT|PATCH|DELETE|POST) /.test(s) && !s.startsWith(`POST ${BASE}/config/validate`));
const output = (run: Run) => `exit ${run.code}\n${run.stdout}${run.stderr}`;

describe("fleet: a node that lies (issue 23 item 2)", () => {
  before(async () => {
    rig = await startRig(lab, { joins: 2 });
    const preload = join(rig.folder, "hwm.cjs");
    await writeFile(preload, AT_EXIT);
    rig.env.NODE_OPTIONS = `--require ${preload}`;
    proxies = await Promise.all(rig.nodes.map(startProxy));
    await rig.writePlan((text) =>
      proxies.reduce((plan, p) => {
        const { port, fingerprint } = p.node.installer;
        return plan
          .replace(`https://127.0.0.1:${port}`, p.url)
          .replace(`"${fingerprint}"`, `"${p.pin}"`)
          .replace(`"${fingerprint.replaceAll(":", "").toLowerCase()}"`, `"${p.pin}"`);
      }, text),
    );
  });

  const reset = () => {
    for (const p of proxies) {
      p.seen = [];
      delete p.lie;
      p.verdict = verdict("succeeded", "installed");
    }
  };

  test("the proxies speak the happy path: the fleet installs through them (exit 0)", async () => {
    reset();
    const run = await fleet();
    console.log(`the happy path: peak RSS ${run.peakMiB.toFixed(1)} MiB, ${run.ms} ms`);
    assert.equal(run.code, 0, output(run));
    for (const p of proxies) assert.ok(p.seen.includes(`POST ${BASE}/install`), `${p.node.name}: ${p.seen.join(", ")}`);
  });

  test("blockers of the wrong type in /status, a draft's verdict of the wrong shape: those nodes are named, nothing is changed on any node, exit 2", async () => {
    reset();
    const liar = named("node-02");
    liar.lie = rewritten(liar, "/status", (status) => ({ ...status, blockers: "all of them" }));
    const validator = named("node-03");
    validator.lie = (req, res) => {
      if (req.url !== `${BASE}/config/validate`) return false;
      send(res, 200, { valid: true, errors: "none" });
      return true;
    };
    const run = await fleet();
    assert.equal(run.code, 2, output(run));
    assert.match(run.stdout, /\[node-02\] error: failed: 127\.0\.0\.1:\d+ gave an answer that is not its installer's: HTTP 200: the answer is not of its schema \(blockers: /);
    assert.match(run.stdout, /\[fleet\] error: node-03: its draft cannot be validated: 127\.0\.0\.1:\d+ gave an answer that is not its installer's: HTTP 200: the answer is not of its schema \(errors: /);
    assert.match(run.stdout, /nothing was changed on any node/);
    assert.doesNotMatch(run.stdout + run.stderr, /TypeError|is not a function/);
    for (const p of proxies) assert.deepEqual(changing(p.seen), [], `${p.node.name} was sent nothing that changes it`);
  });

  test("an init whose join token names another cluster: no join is given it, exit 1, and the run names the command that gathers the bundles (the init's may tell why)", async () => {
    reset();
    const init = named("node-01");
    init.lie = (req, res) => {
      if (req.url !== `${BASE}/cluster/join-token`) return false;
      send(res, 200, { ...TOKEN, cluster: "someone-elses" });
      return true;
    };
    const run = await fleet();
    assert.equal(run.code, 1, output(run));
    assert.match(run.stdout, /join token names cluster "someone-elses", not the plan's cluster "lab-1"/);
    const [gather, again] = run.stdout.trimEnd().split("\n").slice(-2);
    assert.match(gather!, /^\[fleet\] gather what happened: node \S+ fleet \S+ --support-bundle support-bundles$/);
    // Then the way on: the same command again (a run resumes), as it was given.
    assert.match(again!, /^\[fleet\] once what the errors above name is fixed, run it again: nodes installed are left alone, the others go on from where they are: node \S+ fleet \S+ --state \S+$/);
    for (const p of proxies.slice(1)) assert.deepEqual(changing(p.seen), [], `${p.node.name} was sent nothing that changes it`);
  });

  test("a node that answers well until its install, then events or a verdict of the wrong shape: that node fails, the others go on, exit 1", async () => {
    reset();
    const events = named("node-02");
    events.lie = (req, res) => {
      if (!req.url!.startsWith(`${BASE}/install/events`)) return false;
      openSse(res);
      res.end(`id: 1\ndata: ${JSON.stringify({ seq: "first", type: 42 })}\n\n`);
      return true;
    };
    const verdicts = named("node-03");
    // The same verdict of the wrong shape in its last event (not trusted as a success) and at GET /install/verdict.
    const wrongVerdict = { ...verdict("succeeded", "installed"), outcome: 1 };
    verdicts.lie = (req, res) => {
      if (req.url!.startsWith(`${BASE}/install/events`)) {
        openSse(res);
        res.end(`id: 1\ndata: ${JSON.stringify(event(1, "attempt.finished", "installed", { verdict: wrongVerdict }))}\n\n`);
        return true;
      }
      if (!req.url!.startsWith(`${BASE}/install/verdict`)) return false;
      send(res, 200, wrongVerdict);
      return true;
    };
    // With --parallel 1, node-03 starts only after node-02 failed.
    const run = await fleet("--parallel", "1");
    assert.equal(run.code, 1, output(run));
    assert.match(run.stdout, /\[node-02\] error: 127\.0\.0\.1:\d+ gave an answer that is not its installer's: (an event|event \d+) of the stream is not of its schema \(seq: /);
    assert.match(run.stdout, /\[node-03\] error: 127\.0\.0\.1:\d+ gave an answer that is not its installer's: HTTP 200: the answer is not of its schema \(outcome: /);
    assert.match(run.stdout, /node-01 +init +installed +1/);
    assert.match(run.stdout, /node-02 +join +failed +1 /);
    assert.match(run.stdout, /node-03 +join +failed +1 /);
    assert.ok(verdicts.seen.includes(`POST ${BASE}/install`), "node-03 went on after node-02 failed");
    assert.ok(run.ms < HANG_MS, `ended in ${run.ms} ms`);
  });

  test("a refusal of the wrong shape (a 409 whose blockers are a string): that node fails, the others go on, exit 1", async () => {
    reset();
    named("node-02").lie = (req, res) => {
      if (req.method !== "POST" || req.url !== `${BASE}/install`) return false;
      send(res, 409, problem(409, "INSTALL_BLOCKED", "blocked", { blockers: "the disks" }), "application/problem+json");
      return true;
    };
    const run = await fleet("--parallel", "1");
    assert.equal(run.code, 1, output(run));
    assert.match(run.stdout, /\[node-02\] error: 127\.0\.0\.1:\d+ gave an answer that is not its installer's: HTTP 409: the answer is not of its schema \(blockers: /);
    assert.doesNotMatch(run.stdout + run.stderr, /TypeError|is not a function/);
    assert.match(run.stdout, /node-03 +join +installed +1/);
  });

  test("an event stream kept open after attempt.finished: the fleet ends it and goes on (the joins start)", async () => {
    reset();
    const init = named("node-01");
    init.lie = (req, res) => {
      if (!req.url!.startsWith(`${BASE}/install/events`)) return false;
      openSse(res);
      res.write(sse(attemptEvents(init)));
      const heartbeat = setInterval(() => res.write(": still here\n\n"), 100);
      res.on("close", () => clearInterval(heartbeat));
      return true;
    };
    const run = await fleet();
    assert.equal(run.code, 0, output(run));
    for (const join of ["node-02", "node-03"]) assert.ok(named(join).seen.includes(`POST ${BASE}/install`), `${join} was installed after the init node`);
  });

  /** The init node's events after its install: `chunk` written for as long as the fleet reads; its attempt runs all the while. */
  const endless = (chunk: string): Lie => (req, res) => {
    if (req.url!.startsWith(`${BASE}/install/verdict`)) return void send(res, 409, problem(409, "INSTALL_RUNNING", "attempt 1 is running")), true;
    if (!req.url!.startsWith(`${BASE}/install/events`)) return false;
    openSse(res);
    res.write("data: ");
    flood(res, chunk);
    return true;
  };

  for (const [what, chunk] of [["an endless line", "a"], ["an endless event of short lines", "x\ndata: "]] as const) {
    test(`${what} in an event stream: the fleet stays under 200 MiB and ends within a minute; that node fails`, async () => {
      reset();
      named("node-01").lie = endless(chunk);
      const run = await fleet();
      console.log(`${what}: peak RSS ${run.peakMiB.toFixed(1)} MiB, ${run.ms} ms`);
      assert.notEqual(run.code, null, `killed after ${HANG_MS} ms: ${output(run)}`);
      assert.equal(run.code, 1, output(run));
      assert.match(run.stdout, /\[node-01\] error: .*(line|event) is over 1048576 characters/);
      assert.match(run.stdout, /node-02 +join +stopped/);
      assert.ok(run.peakMiB > 0 && run.peakMiB < 200, `peak RSS ${run.peakMiB} MiB`);
    });
  }

  test("an endless answer to /status: the node is named, nothing is changed, exit 2, under 200 MiB within a minute", async () => {
    reset();
    named("node-02").lie = (req, res) => {
      if (req.url !== `${BASE}/status`) return false;
      res.writeHead(200, { "content-type": "application/json" }).write('{"phase":"');
      flood(res, "a");
      return true;
    };
    const run = await fleet();
    console.log(`an endless /status: peak RSS ${run.peakMiB.toFixed(1)} MiB, ${run.ms} ms`);
    assert.equal(run.code, 2, output(run));
    assert.match(run.stdout, /\[node-02\] error: failed: 127\.0\.0\.1:\d+ gave an answer that is not its installer's: the answer is over 16 MiB/);
    assert.ok(run.peakMiB > 0 && run.peakMiB < 200, `peak RSS ${run.peakMiB} MiB`);
    for (const p of proxies) assert.deepEqual(changing(p.seen), [], `${p.node.name} was sent nothing that changes it`);
  });

  const assertShownNeverObeyed = (run: Run) => {
    const all = run.stdout + run.stderr;
    const at = all.search(RAW_CONTROL);
    assert.equal(at, -1, `a raw control character in the output: ${JSON.stringify(all.slice(Math.max(0, at - 60), at + 20))}`);
  };

  test("escape sequences in blockers and release names reach the output shown, never obeyed (lines and --json)", async () => {
    reset();
    const liar = named("node-02");
    const blockers = [{ code: `EVIL${EVIL}`, detail: `detail ${EVIL}` }];
    liar.lie = async (req, res) =>
      (await rewritten(liar, "/status", (status) => ({ ...status, blockers }))(req, res)) || rewritten(liar, "/options", (options) => ({ ...options, release: `2026.11.0${EVIL}` }))(req, res);
    const lines = await fleet();
    assert.equal(lines.code, 2, output(lines));
    assertShownNeverObeyed(lines);
    assert.match(lines.stdout, /node-02: EVIL\\x1b\]0;pwned\\x07 \\x1b\[2J \\x1b\[6n \\x1b\[31mred\\x1b\[0m \\x9b6n \\x7f: detail /);
    assert.match(lines.stdout, /node-02 2026\.11\.0\\x1b\]0;pwned/);
    const json = await fleet("--json");
    assert.equal(json.code, 2, output(json));
    assertShownNeverObeyed(json);
    const notes = json.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.ok(notes.some((n) => n.type === "fleet.node" && n.release === `2026.11.0${EVIL}`), "--json keeps the text, escaped as JSON");
  });

  test("escape sequences in events, verdicts and problem details reach the output shown, never obeyed (lines and --json)", async () => {
    reset();
    const init = named("node-01");
    init.lie = (req, res) => {
      if (!req.url!.startsWith(`${BASE}/install/events`)) return false;
      openSse(res);
      res.end(sse(attemptEvents(init, `firstboot: ${EVIL}`)));
      return true;
    };
    init.verdict = verdict("succeeded", `installed ${EVIL}`);
    named("node-02").verdict = verdict("failed", `ceph-osd did not start ${EVIL}`);
    named("node-03").lie = (req, res) => {
      if (req.method !== "POST" || req.url !== `${BASE}/install`) return false;
      send(res, 500, problem(500, "INTERNAL_ERROR", `the state dir broke ${EVIL}`), "application/problem+json");
      return true;
    };
    for (const args of [[], ["--json"]]) {
      const run = await fleet(...args);
      assert.equal(run.code, 1, output(run));
      assertShownNeverObeyed(run);
      // Shown as \x1b in lines, as the JSON escape \u001b with --json; a step's log line only with --json (lines never show progress).
      if (args.length) assert.match(run.stdout, /firstboot: \\u001b\]0;pwned/);
      assert.match(run.stdout, /ceph-osd did not start \\(x1b|u001b)\]0;pwned/);
      assert.match(run.stdout, /the state dir broke \\(x1b|u001b)\]0;pwned/);
    }
  });
});
