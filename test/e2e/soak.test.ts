import assert from "node:assert/strict";
import { access, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";
import { markedProcesses } from "../helpers/processes.ts";
import { harness, httpsRaw, tempDir, untilNoBlockers, untilStepStartedOnDisk, waitFor, writeFirstboot, type Reply, type RunningInstaller } from "../helpers/installer.ts";

/** Kills in a row on one state dir; the `soak` npm script sets 50. */
const KILLS = Math.max(1, Number(process.env.SOAK_KILLS ?? 12));
const MOMENTS = ["draft-writes", "preflight", "write-config", "firstboot", "readiness"] as const;
type Moment = (typeof MOMENTS)[number];
const LOCKED_ADDRESS = "127.0.0.2";

const lab = harness();

const between = (min: number, max: number) => min + Math.random() * (max - min);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exists = (path: string) => access(path).then(() => true, () => false);
const tally = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

/**
 * Prints LINES lines PAUSE seconds apart; the test writes both files before a run it means to kill. Starts a
 * child in a session of its own that ignores SIGTERM, as a daemonising step would.
 */
const FIRSTBOOT = `#!/bin/sh
here="$(dirname "$0")"
setsid sh -c 'trap "" TERM; sleep 600' &
lines=$(cat "$here/lines" 2>/dev/null || echo 2)
pause=$(cat "$here/pause" 2>/dev/null || echo 0.05)
i=1
while [ "$i" -le "$lines" ]; do
  echo "firstboot: step $i of $lines"
  sleep "$pause"
  i=$((i + 1))
done
echo "firstboot: done"
`;

interface Rig {
  folder: string;
  stateDir: string;
  payload: string;
  nodeYaml: string;
  args: string[];
}

async function rig(readiness: ReadinessServer, extraArgs: string[] = []): Promise<Rig> {
  const folder = await tempDir("stratum-soak-");
  const firstboot = await writeFirstboot(folder, FIRSTBOOT);
  const payload = join(folder, "payload");
  await makePayload(payload);
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const args = ["--firstboot", firstboot, "--node-yaml", nodeYaml, "--readiness-url", readiness.url, "--readiness-timeout", "3600", "--readiness-interval", "0.1", ...extraArgs];
  return { folder, stateDir: join(folder, "state"), payload, nodeYaml, args };
}

function boot(r: Rig): Promise<RunningInstaller> {
  return lab.start({ stateDir: r.stateDir, payload: r.payload, args: r.args });
}

async function readStore(stateDir: string, where: string): Promise<any> {
  const text = await readFile(join(stateDir, "installer.json"), "utf8");
  try {
    return JSON.parse(text);
  } catch (err) {
    assert.fail(`${where}: installer.json does not parse (${(err as Error).message}): ${text.slice(0, 300)}`);
  }
}

type DraftWrite = { kind: "json"; config: Record<string, unknown> } | { kind: "yaml"; yaml: string };

/** Valid and invalid drafts, JSON and YAML, some padded to 200 KB so that a write takes a while. */
function randomDraftWrite(hostname: string): DraftWrite {
  const padding = Math.random() < 0.3 ? Math.floor(between(1_000, 200_000)) : 0;
  if (Math.random() < 0.5) return { kind: "json", config: { ...VALID_DRAFT, hostname, ...(padding ? { notes: "n".repeat(padding) } : {}) } };
  return { kind: "yaml", yaml: `${VALID_NODE_YAML.replace("node-01", hostname)}${padding ? `# ${"n".repeat(padding)}\n` : ""}` };
}

function putDraft(installer: RunningInstaller, write: DraftWrite): Promise<Reply> {
  return write.kind === "json"
    ? installer.request("/v1/installer/config", { method: "PUT", body: write.config })
    : installer.request("/v1/installer/config", { method: "PUT", body: write.yaml, contentType: "application/yaml" });
}

function shows(view: any, write: DraftWrite): boolean {
  return write.kind === "json" ? view.source === "structured" && isDeepStrictEqual(view.config, write.config) : view.source === "yaml" && view.yaml === write.yaml;
}

async function allEvents(installer: RunningInstaller, attempt: number): Promise<any[]> {
  const events: any[] = [];
  for (;;) {
    const reply = await installer.request(`/v1/installer/install/events?attempt=${attempt}&after=${events.at(-1)?.seq ?? 0}`);
    assert.equal(reply.status, 200, `events of attempt ${attempt}: ${reply.text.slice(0, 300)}`);
    events.push(...reply.json.events);
    if (!reply.json.more) {
      assert.equal(reply.json.finished, true, `attempt ${attempt} has no attempt.finished event`);
      return events;
    }
  }
}

/** What one chain of kills on one state dir has been told so far, to hold every restart to it. */
interface Chain {
  rig: Rig;
  installer: RunningInstaller;
  code: string;
  acked: { write: DraftWrite; etag: string };
  /** Sent after the last acknowledged PUT, answered by nobody: any of them may have landed. */
  unanswered: DraftWrite[];
  attempts: number;
  finished: Map<number, { verdict: any; events: number; lastStarted: Step | null }>;
  nodeYamls: Set<string>;
  /** Collected, not thrown: the chain goes on, so that one run shows how often it happens. */
  stepMismatches: string[];
  figures: { acked: number; lockChecks: number; moments: Record<string, number>; interruptedAt: Record<string, number> };
}

async function killDuringDraftWrites(chain: Chain, cycle: number): Promise<void> {
  const { installer } = chain;
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const write = randomDraftWrite(`soak-${cycle}-${i}`);
      chain.unanswered.push(write);
      const reply = await putDraft(installer, write).catch(() => undefined);
      if (!reply) continue;
      assert.equal(reply.status, 200, `PUT /config while writing: ${reply.text.slice(0, 300)}`);
      chain.acked = { write, etag: String(reply.headers.etag) };
      chain.unanswered = [];
      chain.figures.acked += 1;
    }
  })();
  await sleep(between(100, 600));
  const killed = installer.kill9();
  writing = false;
  await Promise.all([killed, writer]);
}

type Step = Exclude<Moment, "draft-writes">;
const STEPS: (Step | null)[] = [null, "preflight", "write-config", "firstboot", "readiness"];
/** How long after a step started the kill may come: preflight and write-config last ~10 ms, the firstboot here 0.3–2.5 s. */
const KILL_WITHIN_MS: Record<Step, number> = { preflight: 6, "write-config": 8, firstboot: 600, readiness: 500 };
/** Often at once: the moment a step's start is on disk is the one most likely to be recorded inconsistently. */
const killDelay = (step: Step) => (Math.random() < 0.3 ? 0 : between(0, KILL_WITHIN_MS[step]));

/** Starts an install and kills the installer in the given step; returns the attempt number. */
async function killDuringInstall(chain: Chain, step: Step, cycle: number): Promise<number> {
  const { installer } = chain;
  const write: DraftWrite = { kind: "json", config: { ...VALID_DRAFT, hostname: `soak-${cycle}` } };
  const put = await putDraft(installer, write);
  assert.equal(put.status, 200, put.text);
  chain.acked = { write, etag: String(put.headers.etag) };
  chain.unanswered = [];
  chain.nodeYamls.add((await installer.request("/v1/installer/config/node.yaml")).text);
  await writeFile(join(chain.rig.folder, "lines"), String(Math.floor(between(3, 10))));
  await writeFile(join(chain.rig.folder, "pause"), between(0.1, 0.25).toFixed(2));
  await untilNoBlockers(installer);
  const started = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(started.status, 202, started.text);
  // The attempt's event log itself: the API's 50 ms round trips would miss a 10 ms step.
  await untilStepStartedOnDisk(chain.rig.stateDir, started.json.attempt, step);
  await sleep(killDelay(step));
  await installer.kill9();
  return started.json.attempt;
}

async function checkDraft(chain: Chain, where: string): Promise<void> {
  const reply = await chain.installer.request("/v1/installer/config");
  assert.equal(reply.status, 200, `${where}: GET /config → ${reply.status} ${reply.text.slice(0, 300)}`);
  const landed = [chain.acked.write, ...chain.unanswered].find((write) => shows(reply.json, write));
  assert.ok(landed, `${where}: GET /config is neither the last acknowledged draft nor one sent after it: ${reply.text.slice(0, 300)}`);
  if (landed === chain.acked.write) assert.equal(reply.headers.etag, chain.acked.etag, `${where}: the acknowledged draft's ETag changed`);
  chain.acked = { write: landed, etag: String(reply.headers.etag) };
  chain.unanswered = [];
}

async function checkAttempts(chain: Chain, interrupted: number | undefined, where: string): Promise<void> {
  const { installer } = chain;
  const list = (await installer.request("/v1/installer/install/attempts")).json.attempts as any[];
  assert.ok(list.length >= chain.attempts, `${where}: attempts went from ${chain.attempts} to ${list.length}`);
  assert.deepEqual(list.map((a) => a.attempt), list.map((_, i) => i + 1), `${where}: attempt numbers`);
  for (const summary of list) {
    const at = `${where}, attempt ${summary.attempt}`;
    assert.notEqual(summary.state, "running", `${at}: still running after a restart`);
    const verdict = await installer.request(`/v1/installer/install/verdict?attempt=${summary.attempt}`);
    assert.equal(verdict.status, 200, `${at}: ${verdict.text.slice(0, 300)}`);
    assert.deepEqual(verdict.json, summary.verdict, `${at}: the verdict and the attempts list disagree`);
    const events = await allEvents(installer, summary.attempt);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), `${at}: seq is not 1, 2, 3 …`);
    assert.equal(events.at(-1).type, "attempt.finished", `${at}: the last event`);
    assert.deepEqual(events.at(-1).data.verdict, verdict.json, `${at}: attempt.finished carries another verdict`);
    const before = chain.finished.get(summary.attempt);
    if (before) {
      assert.deepEqual(verdict.json, before.verdict, `${at}: a finished attempt's verdict changed`);
      assert.equal(events.length, before.events, `${at}: a finished attempt's events changed`);
    }
    const lastStarted = events.filter((e) => e.type === "step.started").at(-1)?.step ?? null;
    chain.finished.set(summary.attempt, { verdict: verdict.json, events: events.length, lastStarted });
  }
  if (interrupted !== undefined) {
    assert.ok(chain.finished.has(interrupted), `${where}: the acknowledged attempt ${interrupted} is gone`);
    const { verdict, lastStarted } = chain.finished.get(interrupted)!;
    assert.equal(verdict.code, "INTERRUPTED", `${where}: ${JSON.stringify(verdict)}`);
    assert.equal(verdict.next, verdict.step === "readiness" ? "recheckReadiness" : "retryInstall", `${where}: ${JSON.stringify(verdict)}`);
    if (STEPS.indexOf(verdict.step) < STEPS.indexOf(lastStarted)) {
      chain.stepMismatches.push(`${where}: the events say ${lastStarted} had started, yet the verdict says interrupted at ${verdict.step ?? "the start of the attempt"} (next ${verdict.next})`);
    }
    tally(chain.figures.interruptedAt, verdict.step ?? "before the first step");
  }
  chain.attempts = list.length;
}

async function lockOut(installer: RunningInstaller): Promise<void> {
  const status = `https://127.0.0.1:${installer.port}/v1/installer/status`;
  for (let i = 0; i < 5; i++) assertProblem(await httpsRaw(status, { code: `WRONG-${i}`, localAddress: LOCKED_ADDRESS }), 401, "UNAUTHORIZED");
  assertProblem(await httpsRaw(status, { code: installer.code, localAddress: LOCKED_ADDRESS }), 429, "TOO_MANY_ATTEMPTS");
}

/** The counters must be in the store; while the 30 s lock lasts (with a margin), the address must still be refused. */
async function checkLockout(chain: Chain, store: any, where: string): Promise<void> {
  const record = store.lockout?.addresses?.[LOCKED_ADDRESS];
  assert.ok(record?.failures >= 5, `${where}: the wrong codes of ${LOCKED_ADDRESS} were forgotten: ${JSON.stringify(store.lockout)}`);
  if (Date.now() > record.lockedUntil - 1_500) return;
  const reply = await httpsRaw(`https://127.0.0.1:${chain.installer.port}/v1/installer/status`, { code: chain.code, localAddress: LOCKED_ADDRESS });
  assertProblem(reply, 429, "TOO_MANY_ATTEMPTS", { what: `${where}: ${LOCKED_ADDRESS} is no longer locked out` });
  chain.figures.lockChecks += 1;
}

async function checkNodeYaml(chain: Chain, where: string): Promise<void> {
  const path = chain.rig.nodeYaml;
  if (!(await exists(path))) return;
  assert.equal((await stat(path)).mode & 0o777, 0o600, `${where}: node.yaml mode`);
  assert.ok(chain.nodeYamls.has(await readFile(path, "utf8")), `${where}: node.yaml is none of the rendered drafts (torn write?)`);
}

async function checkRestarted(chain: Chain, interrupted: number | undefined, where: string): Promise<void> {
  assert.equal(chain.installer.code, chain.code, `${where}: the install code changed`);
  assert.deepEqual(await markedProcesses(chain.rig.stateDir), [], `${where}: a firstboot process of the killed installer still runs after the restart`);
  const store = await readStore(chain.rig.stateDir, where);
  await checkDraft(chain, where);
  await checkAttempts(chain, interrupted, where);
  await checkLockout(chain, store, where);
  await checkNodeYaml(chain, where);
}

describe("soak: kill -9 at random moments, restart on the same state dir", () => {
  test(`${KILLS} kills during draft writes and every install step: nothing acknowledged is lost`, { timeout: 30 * 60_000 }, async () => {
    const began = Date.now();
    const readiness = await startReadinessServer({ port: 0, scenario: "never" });
    lab.defer(() => readiness.close());
    const r = await rig(readiness);
    const installer = await boot(r);
    const draft = await installer.request("/v1/installer/config");
    const chain: Chain = {
      rig: r,
      installer,
      code: installer.code,
      acked: { write: { kind: "json", config: draft.json.config }, etag: String(draft.headers.etag) },
      unanswered: [],
      attempts: 0,
      finished: new Map(),
      nodeYamls: new Set(),
      stepMismatches: [],
      figures: { acked: 0, lockChecks: 0, moments: {}, interruptedAt: {} },
    };
    await lockOut(installer);

    for (let cycle = 0; cycle < KILLS; cycle++) {
      const moment = MOMENTS[cycle % MOMENTS.length]!;
      tally(chain.figures.moments, moment);
      let interrupted: number | undefined;
      if (moment === "draft-writes") await killDuringDraftWrites(chain, cycle);
      else interrupted = await killDuringInstall(chain, moment, cycle);
      chain.installer = await boot(r);
      await checkRestarted(chain, interrupted, `kill ${cycle + 1} (during ${moment})`);
    }
    const { acked, lockChecks, moments, interruptedAt } = chain.figures;
    console.log(
      `soak: ${KILLS} kills in ${((Date.now() - began) / 1000).toFixed(1)} s; moments ${JSON.stringify(moments)}; ` +
        `attempts interrupted at ${JSON.stringify(interruptedAt)}; ${chain.attempts} attempts; ${acked} PUTs acknowledged during write bursts; ` +
        `429 checks inside the lock window: ${lockChecks}; verdicts behind their events: ${chain.stepMismatches.length}`,
    );
    assert.ok(lockChecks >= 1, "no restart fell inside the lock window");
    assert.deepEqual(chain.stepMismatches, [], "an interrupted attempt's verdict must name the step its events had reached");
  });

  test("kills during the unattended take-over and its attempt: the handoff node.yaml is taken once", { timeout: 30 * 60_000 }, async () => {
    const began = Date.now();
    const readiness = await startReadinessServer({ port: 0, scenario: "never" });
    lab.defer(() => readiness.close());
    const runs = Math.max(1, Math.round(KILLS / 4));
    const takeOverKills: Record<string, number> = {};
    let kills = 0;
    for (let run = 0; run < runs; run++) {
      const n = await unattendedRig(readiness);
      tally(takeOverKills, await killDuringTakeOver(n));
      kills += 1;
      for (let restart = 1; restart <= 2; restart++) {
        const installer = await boot(n.rig);
        await checkUnattended(n, installer, `run ${run + 1}, restart ${restart}`);
        await sleep(between(0, 800));
        await installer.kill9();
        kills += 1;
      }
      const installer = await boot(n.rig);
      await waitFor("the unattended attempt", async () => ((await installer.request("/v1/installer/status")).json.unattended?.state === "started" ? true : undefined));
      await checkUnattended(n, installer, `run ${run + 1}, last start`);
      const attempts = (await installer.request("/v1/installer/install/attempts")).json.attempts;
      assert.deepEqual(attempts.map((a: any) => [a.attempt, a.startedBy]), [[1, "unattended"]]);
      await installer.kill9();
    }
    console.log(`soak: unattended take-over, ${runs} fresh state dirs, ${kills} kills in ${((Date.now() - began) / 1000).toFixed(1)} s; first kill landed ${JSON.stringify(takeOverKills)}`);
  });
});

interface UnattendedRig {
  rig: Rig;
  handoff: string;
}

async function unattendedRig(readiness: ReadinessServer): Promise<UnattendedRig> {
  const base = await rig(readiness);
  const handoff = join(base.folder, "handoff/node.yaml");
  const record = join(base.folder, "install-record.json");
  await mkdir(join(base.folder, "handoff"), { recursive: true });
  await writeFile(handoff, VALID_NODE_YAML);
  await writeFile(record, JSON.stringify({ origin: "node.yaml on the partition labeled STRATUM" }));
  return { rig: { ...base, args: [...base.args, "--handoff", handoff, "--install-record", record] }, handoff };
}

/**
 * A first start killed around the take-over: half the time at a random moment after the spawn,
 * half the time as soon as the store file records the take-over. Says where the kill landed.
 */
async function killDuringTakeOver(n: UnattendedRig): Promise<string> {
  const { rig: r } = n;
  const storeFile = join(r.stateDir, "installer.json");
  const installer = await lab.spawn({ stateDir: r.stateDir, payload: r.payload, args: r.args });
  let alive = true;
  void installer.exited.finally(() => (alive = false));
  if (Math.random() < 0.5) await sleep(between(100, 1_200));
  else {
    while (alive && !(await readFile(storeFile, "utf8").catch(() => "")).includes('"handoff"')) await sleep(1);
  }
  await installer.kill9();
  const taken = (await exists(storeFile)) && Boolean((await readStore(r.stateDir, "after the take-over kill")).handoff?.sha256);
  if (!taken) return "before the take-over";
  return (await exists(n.handoff)) ? "between persisting and removing the file" : "after the take-over";
}

async function checkUnattended(n: UnattendedRig, installer: RunningInstaller, where: string): Promise<void> {
  await readStore(n.rig.stateDir, where);
  assert.equal(await exists(n.handoff), false, `${where}: the handoff node.yaml is still there`);
  const status = (await installer.request("/v1/installer/status")).json;
  assert.ok(status.unattended, `${where}: the handoff node.yaml was never taken`);
  const attempts = (await installer.request("/v1/installer/install/attempts")).json.attempts as any[];
  assert.ok(attempts.length <= 1, `${where}: ${attempts.length} attempts: ${JSON.stringify(attempts)}`);
  assert.ok(attempts.every((a) => a.startedBy === "unattended"), where);
  if (status.unattended.state === "started") {
    assert.equal(status.unattended.attempt, 1, where);
    assert.equal(attempts.length, 1, where);
  }
  if (attempts[0] && attempts[0].state !== "running") {
    assert.equal(attempts[0].verdict.code, "INTERRUPTED", `${where}: ${JSON.stringify(attempts[0].verdict)}`);
  }
}
