import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { appendFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { basename, dirname, join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { createEventLog } from "../../../core/attempts/event-log.ts";
import type { InstallEvent } from "../../../core/attempts/events.ts";
import { AttemptRunner } from "../../../core/attempts/runner.ts";
import { createCluster } from "../../../core/cluster/service.ts";
import { createDraftService, type DraftBody } from "../../../core/draft/index.ts";
import { InstallerError, type Blocker } from "../../../core/common/errors.ts";
import { loadHostFactsFile } from "../../../core/host/read-facts.ts";
import type { Step } from "../../../core/state/records.ts";
import { stopLeftoverFirstboots } from "../../../core/attempts/steps/firstboot.ts";
import { firstbootMark, startTimeOf } from "../../../core/process/group.ts";
import { stateLayout } from "../../../core/state/layout.ts";
import { storageError } from "../../../core/fs/storage-error.ts";
import type { AttemptRecord } from "../../../core/state/records.ts";
import { BUILT_IN_RELEASE } from "../../../core/payload/release-model.ts";
import { createRedactor } from "../../../core/secrets/index.ts";
import { VALID_DRAFT } from "../../helpers/fixtures.ts";
import { tempDir, waitFor, writeFirstboot } from "../../helpers/installer.ts";
import { DEMO_HOST_FACTS } from "../../helpers/paths.ts";
import { alive, groupNames } from "../../helpers/processes.ts";
import { manualClock, recordingLog, refuseWrites, reopened, tempStore } from "../../helpers/services.ts";
import { fill, noTmpfs, tmpfsFor } from "../../helpers/full-disk.ts";

const host = await loadHostFactsFile(DEMO_HOST_FACTS);
const SECRET = "fb-SECRET-0815-token";
/** Waits until the test creates `go` beside it: an attempt that stays in firstboot as long as the test needs. */
const GATED = `while [ ! -e "$(dirname "$0")/go" ]; do sleep 0.02; done\necho "firstboot: done"`;

interface RigOptions {
  /** firstboot's shell script body; default: two lines, one with a secret. */
  firstboot?: string;
  /** The cloud's state at each poll (from 0); every poll moves the clock a minute. Default: READY. */
  cloud?: (poll: number) => string;
  draft?: DraftBody;
  blockers?: Blocker[];
  /** Build the runner over this state dir (a second start) instead of a fresh one. */
  stateDir?: string;
  /** The clock moves on this many ms at every reading, as a real one does between two readings. */
  tickMs?: number;
  /** The wall clock alone is stepped by this many ms once the attempt's record names the readiness step (a time sync). */
  wallStepAtReadiness?: number;
}

/** The runner over a real store and event log on a temp state dir, a real firstboot script, a real cloud on loopback, one manual clock. */
async function rig(t: TestContext, options: RigOptions = {}) {
  const folder = await tempDir("stratum-runner-");
  const clock = manualClock();
  let wallOffset = 0;
  let records: (() => { step?: string | null }[]) | undefined;
  const ticking = options.tickMs === undefined ? clock.now : () => {
    const at = clock.now();
    clock.advance(options.tickMs!);
    return at;
  };
  const now = options.wallStepAtReadiness === undefined ? ticking : () => {
    if (wallOffset === 0 && records?.().at(-1)?.step === "readiness") wallOffset = options.wallStepAtReadiness!;
    return new Date(ticking().getTime() + wallOffset);
  };
  const fresh = options.stateDir === undefined ? await tempStore(now) : undefined;
  const stateDir = options.stateDir ?? fresh!.stateDir;
  const store = fresh?.store ?? (await reopened(stateDir));
  const cloudState = options.cloud ?? (() => "READY");
  let polls = 0;
  const cloud = createServer((_req, res) => {
    const state = cloudState(polls++);
    clock.advance(60_000);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ state, ...(state === "READY" ? {} : { checks: [{ name: "ceph", status: "pending" }] }) }));
  });
  await new Promise<void>((resolve) => cloud.listen(0, "127.0.0.1", resolve));
  const { log, entries } = recordingLog();
  const attempts = store.slice("attempts");
  records = () => attempts.get();
  const draft = createDraftService({ draft: store.slice("draft"), context: () => ({ host, release: BUILT_IN_RELEASE }), now, attempts: () => attempts.get(), personActed: () => undefined, log });
  if (options.stateDir === undefined) await draft.set(options.draft ?? { source: "structured", config: VALID_DRAFT });
  const settings = {
    stateDir,
    nodeYaml: join(folder, "etc/node.yaml"),
    firstboot: await writeFirstboot(folder, `#!/bin/sh\n${options.firstboot ?? `echo "firstboot: configuring from $1"\necho "token ${SECRET}" >&2`}\n`),
    readinessUrl: `http://127.0.0.1:${(cloud.address() as { port: number }).port}/v1/readiness`,
    readinessTimeoutSeconds: 600,
    readinessIntervalSeconds: 0.01,
  };
  const readinessUrl = settings.readinessUrl;
  const cluster = createCluster({ cluster: store.slice("cluster"), draft, attempts: () => attempts.get(), release: () => null, readinessUrl, now, log });
  const events = createEventLog(stateDir, now);
  const runner = new AttemptRunner({
    attempts,
    events,
    draft,
    blockers: () => options.blockers ?? [],
    settings,
    payloadVersion: () => "2026.11.0",
    redactor: createRedactor(() => [SECRET]),
    log,
    now,
    // The same clock measures the waits: a readiness poll moves both a minute.
    monotonic: () => clock.now().getTime(),
    cluster,
  });
  t.after(async () => {
    await runner.shutdown();
    cloud.closeAllConnections();
    cloud.close();
  });
  const undone: number[] = [];
  const start = (kind: "install" | "recheck-readiness" = "install", ifMatch?: string) =>
    runner.start(kind, "person", (attempt) => () => void undone.push(attempt), undefined, ifMatch);
  /** The attempt's events, read as a client follows them: to its end. */
  const finished = async (attempt: number): Promise<InstallEvent[]> => {
    const seen: InstallEvent[] = [];
    for await (const batch of events.follow(attempt, 0, AbortSignal.timeout(60_000))) seen.push(...batch);
    return seen;
  };
  const openGate = () => writeFile(join(folder, "go"), "");
  /** The attempts as the next start reads them, once attempt `n` is settled there (its events reach the disk first). */
  const settled = (n: number) =>
    waitFor(`attempt ${n}'s verdict on disk`, async () => {
      const records = (await reopened(stateDir)).slice("attempts").get();
      return records.find((a) => a.attempt === n)?.verdict ? records : undefined;
    });
  return { runner, start, finished, settled, attempts, draft, events, settings, stateDir, folder, entries, undone, openGate, clock };
}

async function refusedWith(promise: Promise<unknown>, code: string): Promise<InstallerError> {
  const error = await promise.then(() => assert.fail(`expected ${code}`), (err: unknown) => err);
  assert.ok(error instanceof InstallerError, String(error));
  assert.equal(error.code, code, error.detail);
  return error;
}

/** An event written to an attempt's file on disk, after its last one, as the runner writes them. */
async function appendOnDisk(stateDir: string, attempt: number, event: Omit<InstallEvent, "seq" | "attempt" | "time">): Promise<void> {
  const path = stateLayout(stateDir).eventsOf(attempt);
  const last = JSON.parse((await readFile(path, "utf8")).trimEnd().split("\n").at(-1)!) as InstallEvent;
  await appendFile(path, `${JSON.stringify({ seq: last.seq + 1, attempt, time: last.time, ...event })}\n`);
}

const milestones = (events: InstallEvent[]) => events.filter((e) => !["step.log", "step.progress", "readiness.poll"].includes(e.type)).map((e) => `${e.type}${e.step ? `:${e.step}` : ""}`);

describe("attempt runner: an install runs its steps in turn and ends with a verdict", () => {
  test("a successful install: every step in order, node.yaml written, firstboot's output redacted, the verdict and record on disk", async (t) => {
    const r = await rig(t);
    const record = await r.start();
    assert.deepEqual({ attempt: record.attempt, state: record.state, kind: record.kind, startedBy: record.startedBy, payloadVersion: record.payloadVersion }, { attempt: 1, state: "running", kind: "install", startedBy: "person", payloadVersion: "2026.11.0" });
    const events = await r.finished(1);
    assert.deepEqual(milestones(events), [
      "attempt.started",
      "step.started:preflight",
      "step.finished:preflight",
      "step.started:write-config",
      "step.finished:write-config",
      "step.started:firstboot",
      "step.finished:firstboot",
      "step.started:readiness",
      "step.finished:readiness",
      "attempt.finished:readiness",
    ]);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "numbered from 1 without a gap");
    const logged = events.filter((e) => e.type === "step.log").map((e) => e.message);
    assert.deepEqual(logged, [`firstboot: configuring from ${r.settings.nodeYaml}`, "token [redacted]"]);
    assert.match(await readFile(r.settings.nodeYaml, "utf8"), /^hostname: "node-01"$/m);

    const done = r.attempts.get()[0]!;
    assert.deepEqual(done.verdict, { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "The node is installed and the cloud reports READY.", next: "none" });
    assert.deepEqual(done.steps.map((s) => [s.step, s.state]), [["preflight", "succeeded"], ["write-config", "succeeded"], ["firstboot", "succeeded"], ["readiness", "succeeded"]]);
    assert.equal(done.steps.find((s) => s.step === "readiness")!.deadline, "2026-12-04T12:10:00.000Z", "the readiness deadline by the injected clock");
    assert.equal(done.firstbootGroup, undefined, "firstboot's group is stopped and forgotten");
    assert.deepEqual(await r.settled(1), [done], "the record on disk is the one in memory");

    // SPEC §6: each event is {seq, attempt, time, type, step?, level, message, data?}, its keys in that order on disk.
    const lines = (await readFile(stateLayout(r.stateDir).eventsOf(1), "utf8")).trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const order = ["seq", "attempt", "time", "type", "step", "level", "message", "data"];
    for (const line of lines) assert.deepEqual(Object.keys(line), order.filter((key) => key in line), JSON.stringify(line));
    assert.deepEqual(lines.filter((l) => l.type === "step.log").map((l) => l.step), ["firstboot", "firstboot"], "a firstboot line carries its step");
  });

  test("an attempt is ended for its clients (the record /status and the verdict read) only once its attempt.finished is written: a kill -9 right after /status said done or failed keeps that word", async (t) => {
    for (const firstboot of [undefined, "exit 3"]) {
      const r = await rig(t, firstboot ? { firstboot } : {});
      const record = await r.start();
      // Whether the disk holds attempt.finished at each moment the record's state or verdict changes.
      const seen: string[] = [];
      for (const field of ["state", "verdict"] as const) {
        let value: unknown = record[field];
        Object.defineProperty(record, field, {
          enumerable: true,
          configurable: true,
          get: () => value,
          set(next: unknown) {
            value = next;
            const onDisk = readFileSync(stateLayout(r.stateDir).eventsOf(1), "utf8").includes('"type":"attempt.finished"');
            seen.push(`${field}${field === "state" ? ` ${String(next)}` : ""}: ${onDisk ? "on disk" : "not on disk"}`);
          },
        });
      }
      await r.finished(1);
      assert.deepEqual(seen.sort(), [`state ${firstboot ? "failed" : "succeeded"}: on disk`, "verdict: on disk"]);
      assert.equal(record.verdict?.outcome, firstboot ? "failed" : "succeeded");
    }
  });

  const failures: { name: string; options: RigOptions; firstboot?: "missing"; step: Step; code: string; next: string; message: RegExp; steps: string[] }[] = [
    {
      name: "firstboot cannot be run",
      options: {},
      firstboot: "missing",
      step: "preflight",
      code: "PREFLIGHT_FAILED",
      next: "retryInstall",
      message: /^The firstboot program .*missing cannot be run \(ENOENT\)/,
      steps: ["preflight:failed"],
    },
    {
      name: "firstboot exits non-zero",
      options: { firstboot: `echo "ceph-osd did not start ${SECRET}" >&2\nexit 3` },
      step: "firstboot",
      code: "FIRSTBOOT_FAILED",
      next: "retryInstall",
      message: /^firstboot exited with code 3; last output: ceph-osd did not start \[redacted\]$/,
      steps: ["preflight:succeeded", "write-config:succeeded", "firstboot:failed"],
    },
    {
      name: "the cloud is not READY by the deadline",
      options: { cloud: () => "CEPH_BOOTSTRAP" },
      step: "readiness",
      code: "READINESS_TIMEOUT",
      next: "recheckReadiness",
      message: /^The cloud was not READY within 600 s; last state CEPH_BOOTSTRAP; not ready: ceph \(pending\)/,
      steps: ["preflight:succeeded", "write-config:succeeded", "firstboot:succeeded", "readiness:failed"],
    },
  ];
  test("a wall clock stepped back as the readiness step starts (a time sync between its announced deadline and its wait) does not stretch the wait: it ends at its 600 s by the monotonic clock", async (t) => {
    // A year back: with the wait's end taken from the wall clock's reading, it would be a year and ten minutes away,
    // and the cloud (READY from its 20th poll, 20 minutes in) would be waited for.
    const r = await rig(t, { cloud: (poll) => (poll >= 20 ? "READY" : "CEPH_BOOTSTRAP"), wallStepAtReadiness: -365 * 24 * 3600 * 1000 });
    await r.start();
    await r.finished(1);
    const record = r.attempts.get()[0]!;
    assert.equal(record.verdict?.code, "READINESS_TIMEOUT", record.verdict?.message);
    assert.match(record.verdict!.message, /^The cloud was not READY within 600 s/);
  });

  for (const row of failures) {
    test(`${row.name} → ${row.code} at ${row.step}, next ${row.next}`, async (t) => {
      const r = await rig(t, row.options);
      if (row.firstboot === "missing") r.settings.firstboot = join(r.folder, "missing");
      await r.start();
      const events = await r.finished(1);
      const record = r.attempts.get()[0]!;
      const { message, ...verdict } = record.verdict!;
      assert.deepEqual(verdict, { attempt: 1, kind: "install", outcome: "failed", step: row.step, code: row.code, next: row.next });
      assert.match(message, row.message);
      assert.deepEqual(record.steps.map((s) => `${s.step}:${s.state}`), row.steps);
      assert.equal(record.state, "failed");
      assert.deepEqual(events.at(-1)!.data, { verdict: record.verdict });
      assert.deepEqual(await r.settled(1), [record]);
    });
  }

  test("the attempt.started event is timed as the attempt's record says it started, though the clock moves between readings", async (t) => {
    const r = await rig(t, { tickMs: 7 });
    const record = await r.start();
    const events = await r.finished(record.attempt);
    assert.equal(events[0]!.type, "attempt.started");
    assert.equal(events[0]!.time, record.startedAt);
    const finished = events.at(-1)!;
    assert.equal(finished.type, "attempt.finished");
    assert.equal(finished.time, (await r.settled(record.attempt)).find((a) => a.attempt === record.attempt)!.finishedAt);
  });

  test("a readiness recheck after a timeout runs the readiness step alone, with the install's endpoints", async (t) => {
    let ready = false;
    const r = await rig(t, { cloud: () => (ready ? "READY" : "CEPH_BOOTSTRAP") });
    await r.start();
    await r.finished(1);
    ready = true;
    const recheck = await r.start("recheck-readiness");
    assert.equal(recheck.attempt, 2);
    assert.deepEqual(milestones(await r.finished(2)), ["attempt.started", "step.started:readiness", "step.finished:readiness", "attempt.finished:readiness"]);
    const [install, rechecked] = r.attempts.get();
    assert.deepEqual(rechecked!.endpoints, install!.endpoints);
    assert.deepEqual(rechecked!.verdict, { attempt: 2, kind: "recheck-readiness", outcome: "succeeded", step: "readiness", code: null, message: "The cloud reports READY.", next: "none" });
  });
});

describe("attempt runner: what may start", () => {
  test("two starts in the same tick: one is attempt 1, the other is refused INSTALL_RUNNING", async (t) => {
    const r = await rig(t, { firstboot: GATED });
    const [first, second] = await Promise.allSettled([r.start(), r.start()]);
    assert.equal(first.status === "fulfilled" && first.value.attempt, 1);
    assert.equal(second.status === "rejected" && (second.reason as InstallerError).code, "INSTALL_RUNNING");
    assert.equal(r.attempts.get().length, 1);
    await r.openGate();
    assert.equal((await r.finished(1)).at(-1)!.type, "attempt.finished");
  });

  const refusals: { name: string; options: RigOptions; ifMatch?: string; code: string }[] = [
    { name: "a draft that does not validate", options: { draft: { source: "structured", config: { mode: "single-node" } } }, code: "INVALID_CONFIG" },
    { name: "a blocker", options: { blockers: [{ code: "PAYLOAD_NOT_LOADED", detail: "No payload." }] }, code: "INSTALL_BLOCKED" },
    { name: "a stale If-Match", options: {}, ifMatch: '"stale"', code: "PRECONDITION_FAILED" },
  ];
  for (const row of refusals) {
    test(`${row.name} → ${row.code}, nothing recorded`, async (t) => {
      const r = await rig(t, row.options);
      await refusedWith(r.start("install", row.ifMatch), row.code);
      assert.deepEqual(r.attempts.get(), []);
      assert.deepEqual(r.undone, [], "refused before it was admitted");
    });
  }

  test("an attempt the state dir refuses to record does not start: 507, memory and disk as before, the admission undone", async (t) => {
    const r = await rig(t);
    const allow = await refuseWrites(r.stateDir);
    await refusedWith(r.start(), "INSUFFICIENT_STORAGE");
    assert.deepEqual(r.attempts.get(), []);
    assert.deepEqual(r.undone, [1]);
    await allow();
    assert.deepEqual((await reopened(r.stateDir)).slice("attempts").get(), []);
    assert.equal((await r.start()).attempt, 1, "the number is free again");
    await r.finished(1);
  });
});

describe("attempt runner: a state dir that refuses writes mid-attempt", () => {
  test("the attempt stops STATE_WRITE_FAILED at the step that could not be recorded; its verdict reaches the disk once writes work again", async (t) => {
    const r = await rig(t, { firstboot: `echo $$ > "$(dirname "$0")/pid"\n${GATED}` });
    await r.start();
    await waitFor("firstboot to run", async () => (await readFile(join(r.folder, "pid"), "utf8").catch(() => "")) || undefined);
    const allow = await refuseWrites(r.stateDir);
    await r.openGate();
    const verdict = await waitFor("the verdict in memory", async () => r.attempts.get()[0]!.verdict);
    const { message, ...rest } = verdict;
    // firstboot exited 0 (its success on record, in memory): a retry would run it again; the readiness wait is what is left.
    assert.deepEqual(rest, { attempt: 1, kind: "install", outcome: "failed", step: "readiness", code: "STATE_WRITE_FAILED", next: "recheckReadiness" });
    assert.match(message, new RegExp(`^The state dir ${r.stateDir} cannot be written \\(EISDIR: a folder is where a file goes\\), so the attempt stopped during readiness\\. .+ is a folder, not a file: move it out of the way, then recheck readiness \\(firstboot has run\\)\\.$`));
    await waitFor("the retry to be logged", async () => r.entries.find((e) => e.message === "attempt not recorded yet: the state dir refuses writes; retrying") ?? undefined);
    await allow();
    assert.deepEqual(await r.settled(1), r.attempts.get());
  });

  test("the event log refused while a step fails for its own reason (node.yaml's write too): the verdict says the state dir's cause and its remedy (a remount), not a full disk guessed", async (t) => {
    const r = await rig(t);
    // What the event log tells its listeners when a write of it fails (a read-only file system), as the step writes node.yaml.
    const refused = storageError(r.stateDir, Object.assign(new Error("EROFS: read-only file system, write"), { code: "EROFS", syscall: "write" }));
    const heard: ((err: Error) => void)[] = [];
    const writer = r.events.writer.bind(r.events);
    r.events.writer = async (attempt, fresh) => {
      const log = await writer(attempt, fresh);
      const onFailure = log.onFailure.bind(log);
      log.onFailure = (listener) => (heard.push(listener), onFailure(listener));
      return log;
    };
    const nodeYaml = r.draft.nodeYaml.bind(r.draft);
    r.draft.nodeYaml = () => {
      for (const listener of heard) listener(refused);
      return nodeYaml();
    };
    await mkdir(r.settings.nodeYaml, { recursive: true });
    await r.start();
    const verdict = await waitFor("the verdict in memory", async () => r.attempts.get()[0]!.verdict);
    assert.deepEqual([verdict.code, verdict.step, verdict.next], ["STATE_WRITE_FAILED", "write-config", "retryInstall"]);
    assert.equal(verdict.message, `The state dir ${r.stateDir} cannot be written (EROFS: its file system is read-only), so the attempt stopped during write-config. Remount its file system read-write, or give the installer another --state-dir, then retry the install.`);
    await r.settled(1);
  });
});

describe("attempt runner: a node.yaml the disk refuses", () => {
  test("node.yaml's file system full: WRITE_FAILED naming node.yaml (not its temp file), why and what to do; firstboot never runs, nothing is left there", { skip: noTmpfs }, async (t) => {
    const r = await rig(t, { firstboot: `touch "$(dirname "$0")/ran"` });
    const etc = dirname(r.settings.nodeYaml);
    if (!(await tmpfsFor(t, etc, "64k"))) return;
    const free = fill(etc);
    t.after(free);
    await r.start();
    const events = await r.finished(1);
    const verdict = r.attempts.get()[0]!.verdict!;
    assert.deepEqual({ ...verdict, message: undefined }, { attempt: 1, kind: "install", outcome: "failed", step: "write-config", code: "WRITE_FAILED", next: "retryInstall", message: undefined });
    assert.equal(verdict.message, `${r.settings.nodeYaml} cannot be written (ENOSPC: no space left on its file system): free space on its file system, then retry the install.`);
    assert.equal(events.at(-1)!.message, verdict.message);
    assert.deepEqual(await readdir(etc), ["filler"], "no node.yaml, no temp file");
    await assert.rejects(stat(join(r.folder, "ran")), { code: "ENOENT" }, "firstboot did not run");
  });
});

describe("attempt runner: stopping and the next start", () => {
  test("a stop mid-firstboot stops its whole group; the next start fails the attempt INTERRUPTED at firstboot, next retryInstall", async (t) => {
    const r = await rig(t, { firstboot: `echo $$ > "$(dirname "$0")/pid"\n${GATED}` });
    await r.start();
    const pid = await waitFor("firstboot to run", async () => Number((await readFile(join(r.folder, "pid"), "utf8").catch(() => "")) || 0) || undefined);
    await r.runner.shutdown();
    assert.equal(await alive(pid), false, "firstboot stopped with the installer");
    assert.equal(r.attempts.get()[0]!.state, "running", "no verdict: the installer stopped, the attempt did not fail");
    assert.equal(r.attempts.get()[0]!.steps.at(-1)!.state, "running", "nor did firstboot: the stop is not its failure");

    const next = await rig(t, { stateDir: r.stateDir });
    assert.deepEqual(await next.runner.recover(), ["attempt 1 was interrupted at firstboot; its verdict says retryInstall"]);
    assert.ok(!milestones(await next.finished(1)).includes("step.finished:firstboot"), "no event says firstboot failed (\"installer stopping\")");
    const record = next.attempts.get()[0]!;
    assert.deepEqual(record.verdict, {
      attempt: 1,
      kind: "install",
      outcome: "failed",
      step: "firstboot",
      code: "INTERRUPTED",
      message: "The installer stopped during firstboot (killed or rebooted); retry the install.",
      next: "retryInstall",
    });
    assert.deepEqual((await reopened(r.stateDir)).slice("attempts").get(), [record]);
  });

  test("what the installer says of a step (firstboot's leftovers stopped) is in the service log, where the operator reads at night; what firstboot prints is not", async (t) => {
    const r = await rig(t, { firstboot: `sleep 60 &\necho "firstboot: done"` });
    await r.start();
    const events = await r.finished(1);
    const stopped = events.find((e) => e.data?.stopped)!;
    assert.equal(stopped.level, "warn");
    assert.deepEqual(r.entries.filter((e) => e.step === "firstboot" && e.level !== "info"), [{ level: "warn", message: "step progress", attempt: 1, step: "firstboot", detail: stopped.message }]);
    assert.ok(!r.entries.some((e) => JSON.stringify(e).includes("firstboot: done")), "firstboot's own output stays in the events");
  });

  test("a stop while the leftovers of a firstboot that exited 0 are being stopped: its success is on record, the next start says recheck readiness, not retry the install", async (t) => {
    // firstboot exits 0 and leaves a child that ignores SIGTERM, saying when it got one: the step is then stopping what firstboot left running.
    // It exits only once its leftover has set its trap: a SIGTERM before that ended the leftover with no word (a flake under load).
    const r = await rig(t, { firstboot: `d="$(dirname "$0")"\n(trap 'touch "$d/termed"' TERM; touch "$d/armed"; while :; do sleep 0.05; done) &\nwhile [ ! -e "$d/armed" ]; do sleep 0.01; done\necho "firstboot: done"` });
    await r.start();
    await waitFor("firstboot's leftover to be asked to stop", async () => ((await stat(join(r.folder, "termed")).catch(() => undefined)) ? true : undefined));
    // The stop comes during the grace the leftover gets (by the service's clock, moved on only then).
    const stopping = r.runner.shutdown();
    r.clock.advance(60_000);
    await stopping;

    const next = await rig(t, { stateDir: r.stateDir });
    assert.deepEqual(await next.runner.recover(), ["attempt 1 was interrupted after firstboot succeeded; its verdict says recheckReadiness"]);
    const record = next.attempts.get()[0]!;
    assert.deepEqual([record.verdict?.code, record.verdict?.step, record.verdict?.next], ["INTERRUPTED", "readiness", "recheckReadiness"]);
    assert.equal(record.verdict?.message, "The installer stopped after firstboot succeeded, before readiness was checked (killed or rebooted); recheck readiness.");
    assert.deepEqual(record.steps.map((s) => `${s.step}:${s.state}`), ["preflight:succeeded", "write-config:succeeded", "firstboot:succeeded"]);
    assert.ok(milestones(await next.finished(1)).includes("step.finished:firstboot"), "firstboot's success is among the attempt's events");
    // What the verdict says to do works, and runs no firstboot.
    const recheck = await next.start("recheck-readiness");
    assert.deepEqual(milestones(await next.finished(recheck.attempt)), ["attempt.started", "step.started:readiness", "step.finished:readiness", "attempt.finished:readiness"]);
  });

  test("killed after a step's success reached the events but before the record did: the next start takes the events' word (recheck readiness after firstboot, never firstboot again)", async (t) => {
    const r = await rig(t, { firstboot: GATED });
    await r.start();
    await waitFor("firstboot to run", async () => (r.attempts.get()[0]!.step === "firstboot" ? true : undefined));
    await r.runner.shutdown();
    // What a kill between the event's fsync and the store's write leaves: the event on disk, the record still running.
    await appendOnDisk(r.stateDir, 1, { type: "step.finished", step: "firstboot", level: "info", message: "firstboot succeeded", data: { outcome: "succeeded", durationMs: 5 } });

    const next = await rig(t, { stateDir: r.stateDir });
    assert.deepEqual(await next.runner.recover(), ["attempt 1 was interrupted after firstboot succeeded; its verdict says recheckReadiness"]);
    const record = next.attempts.get()[0]!;
    assert.deepEqual([record.verdict?.code, record.verdict?.step, record.verdict?.next], ["INTERRUPTED", "readiness", "recheckReadiness"]);
    assert.deepEqual(record.steps.map((s) => `${s.step}:${s.state}`), ["preflight:succeeded", "write-config:succeeded", "firstboot:succeeded"]);
    assert.deepEqual((await reopened(r.stateDir)).slice("attempts").get(), [record]);
  });

  test("killed after the verdict reached the events but before the record did: the next start records that verdict, and adds no second one", async (t) => {
    const r = await rig(t, { firstboot: GATED });
    await r.start();
    await waitFor("firstboot to run", async () => (r.attempts.get()[0]!.step === "firstboot" ? true : undefined));
    await r.runner.shutdown();
    const verdict = { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "The node is installed and the cloud reports READY.", next: "none" };
    await appendOnDisk(r.stateDir, 1, { type: "step.finished", step: "firstboot", level: "info", message: "firstboot succeeded", data: { outcome: "succeeded", durationMs: 5 } });
    await appendOnDisk(r.stateDir, 1, { type: "attempt.finished", step: "readiness", level: "info", message: verdict.message, data: { verdict } });

    const next = await rig(t, { stateDir: r.stateDir });
    assert.deepEqual(await next.runner.recover(), ["attempt 1 had finished (succeeded) when the installer stopped, before its record was written: recorded now"]);
    const record = next.attempts.get()[0]!;
    assert.deepEqual(record.verdict, verdict);
    assert.equal(record.state, "succeeded");
    assert.deepEqual((await reopened(r.stateDir)).slice("attempts").get(), [record]);
    assert.equal(milestones(await next.finished(1)).filter((m) => m.startsWith("attempt.finished")).length, 1, "one verdict among the events");
  });

  test("a stop while an attempt is still being recorded: it never runs (no firstboot after the stop); the next start fails it INTERRUPTED", async (t) => {
    const r = await rig(t, { firstboot: `echo ran >> "$(dirname "$0")/runs"` });
    const starting = r.start();
    await r.runner.shutdown();
    const record = await starting;
    assert.equal(record.state, "running");
    await r.runner.shutdown();
    assert.equal(await readFile(join(r.folder, "runs"), "utf8").catch(() => ""), "", "firstboot ran after the installer stopped");
    assert.equal(r.attempts.get()[0]!.step, null, "no step began after the stop");
    const next = await rig(t, { stateDir: r.stateDir });
    assert.deepEqual(await next.runner.recover(), ["attempt 1 was interrupted at its start; its verdict says retryInstall"]);
  });

  const interrupted: [Step | null, string][] = [
    [null, "retryInstall"],
    ["preflight", "retryInstall"],
    ["write-config", "retryInstall"],
    ["readiness", "recheckReadiness"],
  ];
  for (const [step, next] of interrupted) {
    test(`an attempt a killed installer left running at ${step ?? "its start"} → INTERRUPTED, next ${next}`, async (t) => {
      const { stateDir, store } = await tempStore();
      const running: AttemptRecord = { attempt: 1, kind: "install", startedBy: "person", state: "running", step, startedAt: "2026-12-04T11:00:00.000Z", steps: step ? [{ step, state: "running", startedAt: "2026-12-04T11:00:00.000Z" }] : [], config: { source: "structured", config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [] };
      store.slice("attempts").set([running]);
      await store.slice("attempts").save();
      const r = await rig(t, { stateDir });
      assert.deepEqual(await r.runner.recover(), [`attempt 1 was interrupted at ${step ?? "its start"}; its verdict says ${next}`]);
      const [record] = (await reopened(stateDir)).slice("attempts").get();
      assert.deepEqual([record!.state, record!.verdict?.code, record!.verdict?.next, record!.finishedAt], ["failed", "INTERRUPTED", next, "2026-12-04T12:00:00.000Z"]);
      assert.deepEqual(record!.steps.map((s) => s.state), step ? ["failed"] : []);
      assert.equal((await r.finished(1)).at(-1)!.type, "attempt.finished");
    });
  }

  test("a node.yaml a killed installer was writing (its temp file, holding the rendered config and its secrets) is removed at the next start, saying so", async (t) => {
    const first = await rig(t);
    const folder = dirname(first.settings.nodeYaml);
    await mkdir(folder, { recursive: true });
    const leftover = join(folder, `.${basename(first.settings.nodeYaml)}.4242.tmp`);
    await writeFile(leftover, "cluster:\n  join_token: secret\n");
    await writeFile(join(folder, "other.tmp"), "not ours");
    const notices = await first.runner.recover();
    assert.deepEqual(notices, [`removed ${leftover}, a node.yaml an interrupted write left (it held the rendered config)`]);
    assert.deepEqual((await readdir(folder)).sort(), ["other.tmp"]);
  });

  test("a start with nothing to recover writes no store (its fsyncs would delay every start's first reply)", async (t) => {
    const r = await rig(t);
    await r.start();
    await r.settled(1);
    const next = await rig(t, { stateDir: r.stateDir });
    const before = await stat(stateLayout(r.stateDir).store);
    assert.deepEqual(await next.runner.recover(), []);
    const after = await stat(stateLayout(r.stateDir).store);
    assert.deepEqual([after.ino, after.mtimeMs], [before.ino, before.mtimeMs], "the store file was rewritten");
  });

  test("what a killed installer's firstboot left running is stopped at the next start, before anything else", async (t) => {
    const leftover = leftoverGroup(t);
    // Until sh's child has exec'd sleep it is named sh too.
    await waitFor("the leftover group's sh and sleep to run", async () => ((await groupNames(leftover.pid!)).sort().join(" ") === "sh sleep" ? true : undefined));
    const { stateDir, store } = await tempStore();
    const running: AttemptRecord = { attempt: 1, kind: "install", startedBy: "person", state: "running", step: "firstboot", startedAt: "2026-12-04T11:00:00.000Z", steps: [{ step: "firstboot", state: "running", startedAt: "2026-12-04T11:00:00.000Z" }], config: { source: "structured", config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [], firstbootGroup: { pid: leftover.pid!, startTime: startTimeOf(leftover.pid!) } };
    store.slice("attempts").set([running]);
    await store.slice("attempts").save();
    const r = await rig(t, { stateDir });
    const notices = await r.runner.recover();
    assert.equal(notices.length, 2, notices.join("\n"));
    assert.match(notices[0]!, /^stopped 2 processes the interrupted firstboot of attempt 1 left running: \d+ sh, \d+ sleep$/);
    assert.equal(notices[1], "attempt 1 was interrupted at firstboot; its verdict says retryInstall");
    assert.equal(await alive(leftover.pid!), false);
    const [record] = (await reopened(stateDir)).slice("attempts").get();
    assert.equal(record!.firstbootGroup, undefined, "the group is forgotten once stopped");
    assert.equal(record!.verdict?.code, "INTERRUPTED");
  });
});

describe("attempt runner: a firstboot whose end no record holds", () => {
  /** The store a killed installer leaves at firstboot: the step running, the group recorded (as before firstboot got going). */
  async function killedAtFirstboot(firstbootGroup: AttemptRecord["firstbootGroup"]): Promise<string> {
    const { stateDir, store } = await tempStore();
    const at = "2026-12-04T11:00:00.000Z";
    const running: AttemptRecord = { attempt: 1, kind: "install", startedBy: "person", state: "running", step: "firstboot", startedAt: at, steps: [{ step: "firstboot", state: "running", startedAt: at }], config: { source: "structured", config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [], ...(firstbootGroup ? { firstbootGroup } : {}) };
    store.slice("attempts").set([running]);
    await store.slice("attempts").save();
    return stateDir;
  }

  test("firstboot had exited when the installer started again (killed before its exit was recorded): the verdict says it may have finished, and what to check before retrying", async (t) => {
    // A firstboot that exited 0 while its installer was being killed: gone by the next start, its exit in no record.
    const done = spawn("sh", ["-c", "exit 0"], { stdio: "ignore" });
    const group = { pid: done.pid!, startTime: startTimeOf(done.pid!) };
    await new Promise((resolve) => done.once("exit", resolve));
    const r = await rig(t, { stateDir: await killedAtFirstboot(group) });
    const notices = await r.runner.recover();
    assert.deepEqual(notices, ["attempt 1 was interrupted at firstboot, which may have finished (it was no longer running); its verdict says retryInstall: check the node before retrying"]);
    const [record] = (await reopened(r.stateDir)).slice("attempts").get();
    assert.deepEqual([record!.verdict?.code, record!.verdict?.step, record!.verdict?.next], ["INTERRUPTED", "firstboot", "retryInstall"]);
    assert.equal(
      record!.verdict?.message,
      "The installer stopped during firstboot (killed or rebooted), and firstboot was no longer running when it started again: firstboot may have finished, even successfully, before the installer stopped; its exit was not recorded. Before you retry the install, which runs firstboot again, check on the node whether firstboot completed (its last output is in this attempt's events, and the cloud's readiness endpoint says whether it is up).",
    );
    assert.equal(record!.steps[0]!.message, record!.verdict?.message, "the report's firstboot step says the same");
  });

  test("a start killed in turn after it looked for the leftovers, before the verdict was written: the next start still says firstboot may have finished", async (t) => {
    const done = spawn("sh", ["-c", "exit 0"], { stdio: "ignore" });
    const group = { pid: done.pid!, startTime: startTimeOf(done.pid!) };
    await new Promise((resolve) => done.once("exit", resolve));
    const stateDir = await killedAtFirstboot(group);
    const first = await rig(t, { stateDir });
    // What the first start's recovery does before it writes the verdict, and then it is killed.
    await stopLeftoverFirstboots(first.attempts.get(), firstbootMark(stateDir), false, async () => {}, () => first.attempts.save());
    const next = await rig(t, { stateDir });
    assert.deepEqual(await next.runner.recover(), ["attempt 1 was interrupted at firstboot, which may have finished (it was no longer running); its verdict says retryInstall: check the node before retrying"]);
    assert.equal((await reopened(stateDir)).slice("attempts").get()[0]!.firstbootGroup, undefined, "the group is forgotten with the verdict");
  });

  test("the report of an attempt killed at firstboot has firstboot's last lines as its events hold them (its record was last written before firstboot printed any)", async (t) => {
    const stateDir = await killedAtFirstboot(undefined);
    const at = "2026-12-04T11:00:00.000Z";
    const lines = Array.from({ length: 60 }, (_, i) => `firstboot: line ${i}`);
    const events = [
      { type: "attempt.started", level: "info", message: "install attempt 1 started by a person" },
      { type: "step.started", step: "firstboot", level: "info", message: "firstboot started" },
      ...lines.map((message, i) => ({ type: "step.log", step: "firstboot", level: i % 2 ? "warn" : "info", message, data: { stream: i % 2 ? "stderr" : "stdout" } })),
    ];
    await mkdir(dirname(stateLayout(stateDir).eventsOf(1)), { recursive: true });
    await writeFile(stateLayout(stateDir).eventsOf(1), events.map((e, i) => `${JSON.stringify({ seq: i + 1, attempt: 1, time: at, ...e })}\n`).join(""));
    const r = await rig(t, { stateDir });
    await r.runner.recover();
    const [record] = (await reopened(stateDir)).slice("attempts").get();
    assert.deepEqual(record!.firstbootTail, lines.slice(-50));
  });

  test("firstboot still ran when the installer started again: it is stopped there, so it did not finish; the verdict says retry the install, nothing more", async (t) => {
    const leftover = leftoverGroup(t);
    const r = await rig(t, { stateDir: await killedAtFirstboot({ pid: leftover.pid!, startTime: startTimeOf(leftover.pid!) }) });
    const notices = await r.runner.recover();
    assert.equal(notices.at(-1), "attempt 1 was interrupted at firstboot; its verdict says retryInstall");
    assert.equal(r.attempts.get()[0]!.verdict?.message, "The installer stopped during firstboot (killed or rebooted); retry the install.");
  });

  test("killed before firstboot's group was recorded: firstboot never got past its gate, so the verdict says retry the install, nothing more", async (t) => {
    const r = await rig(t, { stateDir: await killedAtFirstboot(undefined) });
    assert.deepEqual(await r.runner.recover(), ["attempt 1 was interrupted at firstboot; its verdict says retryInstall"]);
  });
});

describe("attempt runner: a readiness recheck that fails never sends the operator back to firstboot", () => {
  test("a recheck a killed installer left running before its readiness step was recorded → INTERRUPTED at readiness, next recheckReadiness, and a recheck is admitted", async (t) => {
    const { stateDir, store } = await tempStore();
    const at = "2026-12-04T11:00:00.000Z";
    const base = () => ({ startedBy: "person" as const, startedAt: at, config: { source: "structured" as const, config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [] });
    const install: AttemptRecord = {
      ...base(),
      attempt: 1,
      kind: "install",
      state: "failed",
      step: "readiness",
      finishedAt: at,
      steps: (["preflight", "write-config", "firstboot", "readiness"] as const).map((step) => ({ step, state: step === "readiness" ? "failed" : "succeeded", startedAt: at, finishedAt: at })),
      verdict: { attempt: 1, kind: "install", outcome: "failed", step: "readiness", code: "READINESS_TIMEOUT", message: "not READY", next: "recheckReadiness" },
    };
    // Killed just after POST /install/recheck-readiness answered 202: its record is on disk, its readiness step not yet.
    const recheck: AttemptRecord = { ...base(), attempt: 2, kind: "recheck-readiness", state: "running", step: null, steps: [] };
    store.slice("attempts").set([install, recheck]);
    await store.slice("attempts").save();
    const r = await rig(t, { stateDir });
    await r.runner.recover();
    const record = (await reopened(stateDir)).slice("attempts").get()[1]!;
    assert.deepEqual([record.verdict?.code, record.verdict?.step, record.verdict?.next], ["INTERRUPTED", "readiness", "recheckReadiness"]);
    assert.doesNotMatch(record.verdict!.message, /retry the install/);
    assert.equal((await r.start("recheck-readiness")).attempt, 3);
  });

  test("a recheck whose readiness step cannot be recorded (state dir refuses writes) → STATE_WRITE_FAILED, next recheckReadiness, not retryInstall", async (t) => {
    let ready = false;
    const r = await rig(t, { cloud: () => (ready ? "READY" : "CEPH_BOOTSTRAP") });
    await r.start();
    await r.finished(1);
    const save = r.attempts.save.bind(r.attempts);
    let allow: (() => Promise<void>) | undefined;
    r.attempts.save = async () => {
      // The recheck's record is written; the write that records its readiness step is refused.
      if (!allow && r.attempts.get()[1]?.steps.length) allow = await refuseWrites(r.stateDir);
      return save();
    };
    ready = true;
    await r.start("recheck-readiness");
    const verdict = await waitFor("the recheck's verdict in memory", async () => r.attempts.get()[1]!.verdict);
    await allow?.();
    assert.deepEqual([verdict.code, verdict.step, verdict.next], ["STATE_WRITE_FAILED", "readiness", "recheckReadiness"]);
    assert.doesNotMatch(verdict.message, /retry the install/);
  });
});

/** A process group as a killed installer's firstboot leaves it (sh and its sleep), killed when the test ends. */
function leftoverGroup(t: TestContext) {
  const leftover = spawn("sh", ["-c", "sleep 60 & wait"], { stdio: "ignore", detached: true });
  t.after(() => {
    try {
      process.kill(-leftover.pid!, "SIGKILL");
    } catch {}
  });
  return leftover;
}
