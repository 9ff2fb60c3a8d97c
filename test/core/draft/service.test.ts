import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDraftService, mergePatch, type DraftService } from "../../../core/draft/service.ts";
import { InstallerError } from "../../../core/common/errors.ts";
import { loadHostFactsFile } from "../../../core/host/read-facts.ts";
import type { AttemptRecord } from "../../../core/state/records.ts";
import { BUILT_IN_RELEASE } from "../../../core/payload/release-model.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../../helpers/fixtures.ts";
import { DEMO_HOST_FACTS } from "../../helpers/paths.ts";
import { manualClock, recordingLog, refuseWrites, reopened, tempStore } from "../../helpers/services.ts";

const host = await loadHostFactsFile(DEMO_HOST_FACTS);
const context = { host, release: BUILT_IN_RELEASE };

/** The draft service over a real store on a temp state dir, the attempts and the "person acted" signal in the test's hands. */
async function draftService() {
  const clock = manualClock();
  const { stateDir, store } = await tempStore(clock.now);
  const { log, entries } = recordingLog();
  const attempts: AttemptRecord[] = [];
  const acted = { calls: 0, undone: 0 };
  const service = createDraftService({
    draft: store.slice("draft"),
    context: () => context,
    now: clock.now,
    attempts: () => attempts,
    personActed: () => {
      acted.calls += 1;
      return () => void (acted.undone += 1);
    },
    log,
  });
  return { service, clock, stateDir, attempts, acted, entries, store };
}

function attempt(state: AttemptRecord["state"]): AttemptRecord {
  return { attempt: 1, kind: "install", startedBy: "person", state, step: null, startedAt: "2026-12-04T11:00:00.000Z", steps: [], config: { source: "structured", config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [] };
}

async function refusedWith(promise: Promise<unknown> | (() => unknown), code: string): Promise<InstallerError> {
  const error = await (typeof promise === "function" ? Promise.resolve().then(promise) : promise).then(
    () => assert.fail(`expected ${code}`),
    (err: unknown) => err,
  );
  assert.ok(error instanceof InstallerError, String(error));
  assert.equal(error.code, code, error.detail);
  return error;
}

describe("mergePatch is RFC 7396's (its appendix A)", () => {
  const rows: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, result] of rows) {
    test(`${JSON.stringify(target)} + ${JSON.stringify(patch)} → ${JSON.stringify(result)}`, () => {
      const before = structuredClone(target);
      assert.deepEqual(mergePatch(target, patch), result);
      assert.deepEqual(target, before, "the target is not changed in place");
    });
  }
});

describe("draft service", () => {
  test("a fresh state dir's draft: empty, structured, revision 0, not valid, with an ETag", async () => {
    const { service } = await draftService();
    const view = service.view();
    assert.deepEqual({ ...view, errors: undefined, etag: undefined }, { source: "structured", config: {}, valid: false, errors: undefined, updatedAt: null, etag: undefined });
    assert.ok(view.errors.length > 0);
    assert.match(view.etag, /^"[A-Za-z0-9_-]{22}"$/);
  });

  test("replace: written to the state dir with the next revision and the clock's time; the person acted, the change is logged without its content", async () => {
    const { service, clock, stateDir, acted, entries } = await draftService();
    clock.advance(1500);
    const view = await service.replace({ source: "structured", config: VALID_DRAFT }, undefined, { requestId: "r-1", client: "127.0.0.1" });
    assert.deepEqual(view, { source: "structured", config: VALID_DRAFT, valid: true, errors: [], updatedAt: "2026-12-04T12:00:01.500Z", etag: view.etag });
    assert.deepEqual((await reopened(stateDir)).slice("draft").get(), { source: "structured", config: VALID_DRAFT, revision: 1, updatedAt: "2026-12-04T12:00:01.500Z" });
    assert.deepEqual(acted, { calls: 1, undone: 0 });
    assert.deepEqual(entries, [{ level: "info", message: "config changed", requestId: "r-1", client: "127.0.0.1", change: "replace", source: "structured", revision: 1, valid: true, errors: 0 }]);
  });

  test("the ETag names the content and its source: the same draft again keeps it, another one or the same text as YAML changes it", async () => {
    const { service } = await draftService();
    const first = (await service.replace({ source: "structured", config: VALID_DRAFT }, undefined)).etag;
    assert.equal((await service.replace({ source: "structured", config: structuredClone(VALID_DRAFT) }, undefined)).etag, first);
    assert.notEqual((await service.replace({ source: "structured", config: { ...VALID_DRAFT, hostname: "node-02" } }, undefined)).etag, first);
    const asYaml = (await service.replace({ source: "yaml", yaml: JSON.stringify(VALID_DRAFT) }, undefined)).etag;
    assert.notEqual(asYaml, first);
  });

  test("the same draft again changes nothing: its ETag, updatedAt and revision stay (a strong ETag vouches for the whole representation); the person still acted", async () => {
    const { service, clock, stateDir, acted, store } = await draftService();
    const marker = store.slice("lockout");
    const first = await service.replace({ source: "structured", config: VALID_DRAFT }, undefined);
    clock.advance(60_000);
    const again = await service.replace({ source: "structured", config: structuredClone(VALID_DRAFT) }, undefined);
    assert.deepEqual(again, first);
    assert.equal((await reopened(stateDir)).slice("draft").get().revision, 1);
    assert.equal(acted.calls, 2);
    // What the person's change did besides (here: a lockout record, as a take-over changes the unattended one) is saved all the same.
    marker.set({ addresses: {}, globalFailures: [42] });
    await service.replace({ source: "structured", config: structuredClone(VALID_DRAFT) }, undefined);
    assert.deepEqual((await reopened(stateDir)).slice("lockout").get().globalFailures, [42]);
    // The same by a merge patch that changes nothing, too.
    clock.advance(60_000);
    assert.deepEqual(await service.patch({ hostname: VALID_DRAFT.hostname }, undefined), first);
    // A change moves all three.
    clock.advance(60_000);
    const changed = await service.replace({ source: "structured", config: { ...VALID_DRAFT, hostname: "node-02" } }, undefined);
    assert.notEqual(changed.etag, first.etag);
    assert.notEqual(changed.updatedAt, first.updatedAt);
  });

  describe("If-Match decides whether a change applies", () => {
    const rows: { name: string; ifMatch: (etag: string) => string; applies: boolean }[] = [
      { name: "the current ETag", ifMatch: (etag) => etag, applies: true },
      { name: "the current ETag, weak (If-Match compares strongly)", ifMatch: (etag) => `W/${etag}`, applies: false },
      { name: "a list holding it", ifMatch: (etag) => `"other", ${etag}`, applies: true },
      { name: "*", ifMatch: () => "*", applies: true },
      { name: "a stale ETag", ifMatch: () => '"stale"', applies: false },
      { name: "the ETag without its quotes", ifMatch: (etag) => etag.slice(1, -1), applies: false },
    ];
    for (const row of rows) {
      test(`${row.name} → ${row.applies ? "applied" : "412 PRECONDITION_FAILED, nothing written"}`, async () => {
        const { service, stateDir } = await draftService();
        const { etag } = await service.replace({ source: "structured", config: VALID_DRAFT }, undefined);
        const change = service.patch({ hostname: "node-02" }, row.ifMatch(etag));
        if (row.applies) {
          assert.equal((await change).config?.hostname, "node-02");
          assert.doesNotThrow(() => service.requireMatch(row.ifMatch(service.view().etag)));
        } else {
          const error = await refusedWith(change, "PRECONDITION_FAILED");
          assert.match(error.detail, /GET \/v1\/installer\/config again/);
          assert.equal((await reopened(stateDir)).slice("draft").get().revision, 1);
          await refusedWith(() => service.requireMatch(row.ifMatch(etag)), "PRECONDITION_FAILED");
        }
      });
    }
  });

  describe("the attempts decide whether the draft may change", () => {
    const rows: { attempts: AttemptRecord["state"][]; code?: string }[] = [
      { attempts: [] },
      { attempts: ["failed"] },
      { attempts: ["running"], code: "INSTALL_RUNNING" },
      { attempts: ["failed", "succeeded"], code: "ALREADY_INSTALLED" },
    ];
    for (const row of rows) {
      test(`attempts [${row.attempts.join(", ")}] → ${row.code ?? "changed"}`, async () => {
        const { service, attempts, acted, stateDir } = await draftService();
        attempts.push(...row.attempts.map((state, i) => ({ ...attempt(state), attempt: i + 1 })));
        const changes: (() => Promise<unknown>)[] = [
          () => service.replace({ source: "structured", config: VALID_DRAFT }, undefined),
          () => service.patch({ hostname: "node-02" }, undefined),
        ];
        for (const change of changes) {
          if (row.code) await refusedWith(change(), row.code);
          else await change();
        }
        const revision = row.code ? 0 : 2;
        assert.equal((await reopened(stateDir)).slice("draft").get().revision, revision);
        assert.equal(acted.calls, revision, "a refused change is no person's act");
      });
    }
  });

  test("patch merges into a structured draft (null removes a field); a raw node.yaml draft takes no patch", async () => {
    const { service } = await draftService();
    await service.replace({ source: "structured", config: VALID_DRAFT }, undefined);
    const patched = await service.patch({ timezone: null, network: { dns: ["10.20.0.3"] } }, undefined);
    const { timezone: _timezone, ...rest } = VALID_DRAFT;
    assert.deepEqual(patched.config, { ...rest, network: { ...VALID_DRAFT.network, dns: ["10.20.0.3"] } });
    await service.replace({ source: "yaml", yaml: VALID_NODE_YAML }, undefined);
    const error = await refusedWith(service.patch({ hostname: "x" }, undefined), "INVALID_REQUEST");
    assert.match(error.detail, /raw node\.yaml/);
    assert.equal(service.view().yaml, VALID_NODE_YAML);
  });

  test("a config nested deeper than 32 levels is refused before anything is written", async () => {
    const { service, acted } = await draftService();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { x: deep };
    await refusedWith(service.replace({ source: "structured", config: deep }, undefined), "INVALID_REQUEST");
    await refusedWith(service.patch(deep, undefined), "INVALID_REQUEST");
    assert.equal(service.record().revision, 0);
    assert.equal(acted.calls, 0);
  });

  test("a draft the state dir refuses to write: 507, the previous draft stays in memory as on disk, and the person's act is undone", async () => {
    const { service, stateDir, acted } = await draftService();
    await service.replace({ source: "structured", config: VALID_DRAFT }, undefined);
    const before = service.view();
    const allow = await refuseWrites(stateDir);
    await refusedWith(service.replace({ source: "yaml", yaml: VALID_NODE_YAML }, undefined), "INSUFFICIENT_STORAGE");
    await refusedWith(service.set({ source: "yaml", yaml: VALID_NODE_YAML }), "INSUFFICIENT_STORAGE");
    assert.deepEqual(service.view(), before);
    assert.deepEqual(acted, { calls: 2, undone: 1 }, "the handoff (set) is no person's act");
    await allow();
    assert.equal((await reopened(stateDir)).slice("draft").get().revision, 1);
  });

  test("set: the service's own change, logged as the handoff, no person acted and no admission asked", async () => {
    const { service, attempts, acted, entries } = await draftService();
    attempts.push(attempt("running"));
    await service.set({ source: "yaml", yaml: VALID_NODE_YAML });
    assert.equal(service.view().yaml, VALID_NODE_YAML);
    assert.equal(acted.calls, 0);
    assert.deepEqual(entries.map((e) => [e.message, e.change]), [["config changed", "handoff"]]);
  });

  test("validate analyses a body without keeping it", async () => {
    const { service } = await draftService();
    assert.equal(service.validate({ source: "structured", config: VALID_DRAFT }).valid, true);
    const invalid = service.validate({ source: "yaml", yaml: "mode: single-node\n" });
    assert.equal(invalid.valid, false);
    assert.ok(invalid.errors.some((e) => e.field === "hostname"), JSON.stringify(invalid.errors));
    assert.equal(service.record().revision, 0);
  });

  test("nodeYaml and review: INVALID_CONFIG with the draft's errors until it validates; then the node.yaml, disks by stable path, and the ETag reviewed", async () => {
    const { service } = await draftService();
    const error = await refusedWith(() => service.nodeYaml(), "INVALID_CONFIG");
    assert.deepEqual(error.errors, service.view().errors);
    await refusedWith(() => service.review(), "INVALID_CONFIG");

    const view = await service.replace({ source: "structured", config: { ...VALID_DRAFT, storage: { osdDevices: ["/dev/sdb"] } } }, undefined);
    const nodeYaml = service.nodeYaml();
    assert.match(nodeYaml, /^hostname: "node-01"$/m);
    assert.match(nodeYaml, /^ {4}- "\/dev\/disk\/by-id\/wwn-0x5002538f4312abcd"$/m, "a kernel name (/dev/sdb) is written by its stable path");
    const review = service.review();
    assert.equal(review.etag, view.etag);
    assert.deepEqual(review.erases.map((d) => d.path), ["/dev/sdb"]);
  });

  test("the analysis is kept until the draft or the validation context changes", async () => {
    const clock = manualClock();
    const { store } = await tempStore(clock.now);
    let ctx = context;
    const service: DraftService = createDraftService({ draft: store.slice("draft"), context: () => ctx, now: clock.now, attempts: () => [], personActed: () => undefined, log: recordingLog().log });
    await service.replace({ source: "structured", config: VALID_DRAFT }, undefined);
    const first = service.analysis();
    assert.equal(service.analysis(), first);
    ctx = { ...context };
    assert.notEqual(service.analysis(), first);
    assert.deepEqual(service.analysis(), first);
  });
});
