import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { access, mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { createDraftService } from "../../core/draft/service.ts";
import { InstallerError, type Blocker } from "../../core/common/errors.ts";
import { loadHostFactsFile } from "../../core/host/read-facts.ts";
import { BUILT_IN_RELEASE } from "../../core/payload/release-model.ts";
import { createUnattendedService } from "../../core/unattended/service.ts";
import { VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { tempDir, waitFor } from "../helpers/installer.ts";
import { DEMO_HOST_FACTS } from "../helpers/paths.ts";
import { manualClock, recordingLog, reopened, tempStore } from "../helpers/services.ts";
import { noSpace } from "../helpers/full-disk.ts";

const host = await loadHostFactsFile(DEMO_HOST_FACTS);
const ORIGIN = "node.yaml on the partition labeled STRATUM";
const INVALID_NODE_YAML = VALID_NODE_YAML.replace("hostname: node-01", "hostname: node_01");
const VERIFYING: Blocker = { code: "PAYLOAD_VERIFYING", detail: "Checking the payload's checksums." };
const NOT_LOADED: Blocker = { code: "PAYLOAD_NOT_LOADED", detail: "No payload." };

interface RigOptions {
  /** The handoff node.yaml stage 1 left; undefined: none. */
  handoff?: string;
  /** Stage 1's install record, as its text; undefined: none. */
  installRecord?: string;
  blockers?: Blocker[];
  /** The attempts service refuses the start with this. */
  refuseStart?: InstallerError;
  /** The wait before a retry of a start the state dir refused (default: never returns). */
  wait?: (ms: number, signal: AbortSignal) => Promise<boolean>;
}

/**
 * The unattended service over a real store on a temp state dir, a real handoff file and the real draft service;
 * the attempts it starts are counted (the attempt runner has its own tests) and the blockers are the test's.
 */
async function rig(options: RigOptions = {}) {
  const folder = await tempDir("stratum-unattended-unit-");
  const handoffPath = join(folder, "handoff/node.yaml");
  const installRecord = join(folder, "install-record.json");
  if (options.handoff !== undefined) {
    await mkdir(dirname(handoffPath), { recursive: true });
    await writeFile(handoffPath, options.handoff);
  }
  if (options.installRecord !== undefined) await writeFile(installRecord, options.installRecord);
  const clock = manualClock();
  const { stateDir, store } = await tempStore(clock.now);
  const { log, entries } = recordingLog();
  const blockers = { list: options.blockers ?? [] };
  const started: number[] = [];
  let refuseStart = options.refuseStart;
  const draft = createDraftService({
    draft: store.slice("draft"),
    context: () => ({ host, release: BUILT_IN_RELEASE }),
    now: clock.now,
    attempts: () => [],
    personActed: () => unattended.personActed(),
    log,
  });
  const unattended = createUnattendedService({
    unattended: store.slice("unattended"),
    handoff: store.slice("handoff"),
    draft,
    attempts: {
      beginUnattended: async (admitted) => {
        if (refuseStart) throw refuseStart;
        const attempt = started.length + 1;
        admitted(attempt);
        started.push(attempt);
        return { attempt, phase: "installing", eventsUrl: `/v1/installer/install/events?attempt=${attempt}` };
      },
    },
    blockers: () => blockers.list,
    handoffPath,
    installRecord,
    log,
    now: clock.now,
    wait: options.wait ?? (() => new Promise<boolean>(() => undefined)),
  });
  const handoffExists = () => access(handoffPath).then(() => true, () => false);
  const persisted = async () => {
    const data = await reopened(stateDir);
    return { unattended: data.slice("unattended").get(), handoff: data.slice("handoff").get(), draft: data.slice("draft").get() };
  };
  const allowStart = () => void (refuseStart = undefined);
  const refuse = (err: InstallerError) => void (refuseStart = err);
  return { stateDir, unattended, draft, blockers, started, allowStart, refuse, entries, handoffPath, handoffExists, persisted };
}

const TAKEN_AT = "2026-12-04T12:00:00.000Z";

describe("unattended: what the first start makes of stage 1's node.yaml (SPEC §8)", () => {
  const rows: {
    name: string;
    options: RigOptions;
    record: Record<string, unknown>;
    outcome: string;
    started: number[];
  }[] = [
    {
      name: "valid, nothing blocks",
      options: { handoff: VALID_NODE_YAML },
      record: { state: "started", origin: ORIGIN, takenAt: TAKEN_AT, attempt: 1 },
      outcome: "started (attempt 1)",
      started: [1],
    },
    {
      name: "valid, the payload still being checked",
      options: { handoff: VALID_NODE_YAML, blockers: [VERIFYING] },
      record: { state: "blocked", origin: ORIGIN, takenAt: TAKEN_AT, autoStart: true },
      outcome: "waiting for the payload check (PAYLOAD_VERIFYING); it starts by itself once the payload is verified",
      started: [],
    },
    {
      name: "valid, other blockers",
      options: { handoff: VALID_NODE_YAML, blockers: [NOT_LOADED, VERIFYING, NOT_LOADED] },
      record: { state: "blocked", origin: ORIGIN, takenAt: TAKEN_AT, autoStart: true },
      outcome: "blocked by PAYLOAD_NOT_LOADED, PAYLOAD_VERIFYING; it starts by itself once they clear (GET /status lists them with how to fix each)",
      started: [],
    },
    {
      name: "valid, but the start is refused (not by the state dir, whose refusal is retried: below)",
      options: { handoff: VALID_NODE_YAML, refuseStart: new InstallerError({ code: "INSTALL_RUNNING", detail: "Attempt 1 is still running." }) },
      record: { state: "blocked", origin: ORIGIN, takenAt: TAKEN_AT, autoStart: true },
      outcome: "blocked: the install could not start (see the log); it is tried again when the payload changes",
      started: [],
    },
    {
      name: "invalid",
      options: { handoff: INVALID_NODE_YAML },
      record: { state: "invalid", origin: ORIGIN, takenAt: TAKEN_AT },
      outcome: "invalid",
      started: [],
    },
  ];
  for (const row of rows) {
    test(`${row.name} → ${row.outcome.split(/[ (;]/)[0]}`, async () => {
      const r = await rig({ installRecord: JSON.stringify({ origin: ORIGIN }), ...row.options });
      const notice = (await r.unattended.start())[0];
      assert.equal(notice, `took ${r.handoffPath} as the draft for an unattended install: ${row.outcome}`);
      const { errors, ...record } = r.unattended.record()!;
      assert.deepEqual(record, row.record);
      if (row.record.state === "invalid") assert.ok(errors!.some((e) => e.field === "hostname"), JSON.stringify(errors));
      else assert.equal(errors, undefined);
      assert.deepEqual(r.started, row.started);
      assert.equal(await r.handoffExists(), false, "the file is removed once what became of it is written");
      const persisted = await r.persisted();
      assert.deepEqual(persisted.unattended, r.unattended.record(), "what became of it is on disk");
      assert.match(persisted.handoff!.sha256!, /^[0-9a-f]{64}$/);
      assert.deepEqual(persisted.draft, { source: "yaml", yaml: row.options.handoff, revision: 1, updatedAt: TAKEN_AT }, "the node.yaml is the draft, verbatim");
    });
  }

  test("no node.yaml at the first start: that is written, and a node.yaml that comes later is not taken", async () => {
    const r = await rig();
    assert.equal((await r.unattended.start())[0], undefined);
    assert.deepEqual((await r.persisted()).handoff, { sha256: null });
    assert.equal(r.unattended.record(), undefined);
    await mkdir(dirname(r.handoffPath), { recursive: true });
    await writeFile(r.handoffPath, VALID_NODE_YAML);
    assert.equal((await r.unattended.start())[0], `${r.handoffPath} is not taken: a node.yaml is taken only at the state dir's first start`);
    assert.equal(await r.handoffExists(), true);
    assert.equal(r.draft.record().revision, 0);
  });

  test("a handoff path that is no file stage 1 wrote (a named pipe, a link) is not taken, saying why: the start neither hangs nor takes another file's text", async () => {
    for (const [make, what] of [
      [(path: string) => void spawnSync("mkfifo", [path]), "a named pipe"],
      [(path: string) => symlink("/etc/hostname", path), "a link"],
    ] as const) {
      const r = await rig();
      await mkdir(dirname(r.handoffPath), { recursive: true });
      await make(r.handoffPath);
      assert.equal((await r.unattended.start())[0], `${r.handoffPath} is not taken: it is ${what}, not a file (stage 1 leaves node.yaml as a file)`);
      assert.equal(r.draft.record().revision, 0);
      assert.equal(r.unattended.record(), undefined);
    }
  });

  test("a node.yaml taken before a crash that left the file is removed at the next start, not taken twice", async () => {
    const r = await rig({ handoff: VALID_NODE_YAML });
    (await r.unattended.start())[0];
    await writeFile(r.handoffPath, VALID_NODE_YAML);
    assert.equal((await r.unattended.start())[0], `removed ${r.handoffPath}, already taken before the last stop`);
    assert.equal(await r.handoffExists(), false);
    assert.deepEqual(r.started, [1]);
    assert.equal(r.draft.record().revision, 1);
  });

  describe("the origin comes from stage 1's install record", () => {
    const rows: [string, string | undefined, string][] = [
      ["origin at the top", JSON.stringify({ origin: ORIGIN }), ORIGIN],
      ["origin under handoff", JSON.stringify({ handoff: { origin: "a USB stick" } }), "a USB stick"],
      ["an origin that is not text", JSON.stringify({ origin: 7 }), ""],
      ["a record that is not JSON", "{not json", ""],
      ["no record", undefined, ""],
    ];
    for (const [name, text, origin] of rows) {
      test(`${name} → "${origin}"`, async () => {
        const r = await rig({ handoff: VALID_NODE_YAML, installRecord: text });
        (await r.unattended.start())[0];
        assert.equal(r.unattended.record()?.origin, origin);
      });
    }
  });
});

describe("unattended: a blocked node.yaml waits", () => {
  test("once the blockers clear it starts by itself, and that is written", async () => {
    const r = await rig({ handoff: VALID_NODE_YAML, blockers: [VERIFYING] });
    (await r.unattended.start())[0];
    await r.unattended.blockersChanged();
    assert.deepEqual(r.started, [], "not while a blocker remains");
    r.blockers.list = [];
    await r.unattended.blockersChanged();
    assert.deepEqual(r.started, [1]);
    assert.deepEqual((await r.persisted()).unattended, { state: "started", origin: "", takenAt: TAKEN_AT, attempt: 1 });
    await r.unattended.blockersChanged();
    assert.deepEqual(r.started, [1], "started once");
  });

  test("a person who changes the draft ends the wait for good; a change that fails to be written gives the wait back", async () => {
    const r = await rig({ handoff: VALID_NODE_YAML, blockers: [VERIFYING] });
    (await r.unattended.start())[0];
    const undo = r.unattended.personActed();
    assert.equal(r.unattended.record()!.autoStart, false);
    undo!();
    assert.equal(r.unattended.record()!.autoStart, true);

    await r.draft.replace({ source: "yaml", yaml: VALID_NODE_YAML.replace("node-01", "node-02") }, undefined);
    assert.deepEqual((await r.persisted()).unattended, { state: "blocked", origin: "", takenAt: TAKEN_AT, autoStart: false }, "written with the person's change");
    r.blockers.list = [];
    await r.unattended.blockersChanged();
    assert.deepEqual(r.started, []);
    assert.equal(r.unattended.personActed(), undefined, "nothing left to end");
  });

  test("a person's act ends nothing once it started or when it was invalid", async () => {
    for (const handoff of [VALID_NODE_YAML, INVALID_NODE_YAML]) {
      const r = await rig({ handoff });
      (await r.unattended.start())[0];
      const before = structuredClone(r.unattended.record());
      assert.equal(r.unattended.personActed(), undefined);
      assert.deepEqual(r.unattended.record(), before);
    }
  });

  test("a refused start is logged, and tried again when the blockers change", async () => {
    const refuseStart = new InstallerError({ code: "INSUFFICIENT_STORAGE", detail: "no space" });
    const r = await rig({ handoff: VALID_NODE_YAML, refuseStart });
    (await r.unattended.start())[0];
    assert.deepEqual(
      r.entries.filter((e) => e.level === "warn").map((e) => [e.message, e.error]),
      [["unattended install could not start", "InstallerError: INSUFFICIENT_STORAGE: no space"]],
    );
    r.allowStart();
    await r.unattended.blockersChanged();
    assert.deepEqual(r.started, [1]);
    assert.deepEqual(r.entries.filter((e) => e.message === "unattended node.yaml decided").map((e) => [e.state, e.attempt]), [["blocked", undefined], ["started", 1]]);
  });

  test("a start the state dir refused (a full disk) is tried again by itself, waiting longer each time, until the state dir takes it: no person and no payload change needed", async () => {
    const waits: { ms: number; go: (again: boolean) => void }[] = [];
    const waited = () => waitFor("the next retry's wait", async () => waits.at(-1));
    const r = await rig({ handoff: VALID_NODE_YAML, wait: (ms) => new Promise((go) => waits.push({ ms, go })) });
    const full = noSpace(r.stateDir);
    r.refuse(full);
    const notice = (await r.unattended.start())[0];
    assert.equal(
      notice,
      `took ${r.handoffPath} as the draft for an unattended install: blocked: the install could not start: The state dir ${r.stateDir} cannot be written (ENOSPC: no space left on its file system); it is tried again by itself until the state dir takes writes: free space on its file system`,
    );
    (await waited()).go(true);
    await waitFor("the second wait", async () => waits.length === 2 || undefined);
    assert.deepEqual(r.started, [], "still refused");
    r.allowStart();
    waits[1]!.go(true);
    await waitFor("the start", async () => r.started.length === 1 || undefined);
    assert.deepEqual(waits.map((w) => w.ms), [1000, 2000]);
    await waitFor("the record written", async () => (await r.persisted()).unattended?.state === "started" || undefined);
    assert.deepEqual((await r.persisted()).unattended, { state: "started", origin: "", takenAt: TAKEN_AT, attempt: 1 });
    assert.equal(waits.length, 2, "no retry after it started");
  });

  test("the retries end when a person acts, and when the service stops", async () => {
    const full = () => noSpace("/state");
    for (const end of ["person", "stop"] as const) {
      const waits: { signal: AbortSignal; go: (again: boolean) => void }[] = [];
      const r = await rig({ handoff: VALID_NODE_YAML, wait: (_, signal) => new Promise((go) => waits.push({ signal, go })) });
      r.refuse(full());
      await r.unattended.start();
      await waitFor("the first wait", async () => waits[0]);
      r.allowStart();
      if (end === "person") {
        r.unattended.personActed();
        waits[0]!.go(true);
      } else {
        const stopping = r.unattended.stop();
        assert.equal(waits[0]!.signal.aborted, true, "the wait is told at once");
        waits[0]!.go(false);
        await stopping;
      }
      // The retries' own end, not a moment after: one that went on would wait again, a minute at most each time, forever.
      await r.unattended.retryEnded();
      assert.deepEqual(r.started, [], end);
      assert.equal(waits.length, 1, end);
    }
  });

  test("a person's change that the full state dir refused too is undone, and the retries take up again: the node still starts by itself once the disk takes it", async () => {
    const waits: { go: (again: boolean) => void }[] = [];
    const r = await rig({ handoff: VALID_NODE_YAML, wait: () => new Promise((go) => waits.push({ go })) });
    r.refuse(noSpace(r.stateDir));
    await r.unattended.start();
    await waitFor("the first wait", async () => waits[0]);
    // The person's change comes while the retry waits; the retry then sees it and ends.
    const undo = r.unattended.personActed();
    waits[0]!.go(true);
    await r.unattended.retryEnded();
    // Their write failed on the same full disk: their change is undone, the draft is stage 1's again, waiting to start.
    undo!();
    await waitFor("a retry taken up again", async () => waits[1]);
    r.allowStart();
    waits[1]!.go(true);
    await waitFor("the start", async () => r.started.length === 1 || undefined);
    assert.deepEqual(r.started, [1]);
  });
});
