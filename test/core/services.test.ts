import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { describe, type TestContext, test } from "node:test";
import { stateLayout } from "../../core/state/layout.ts";
import { makePayload } from "../../demo/make-payload.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { passing, wiredNode as node, type WiredNode } from "../helpers/services.ts";

const noBlockers = (n: WiredNode) => passing(n, "no blockers", () => (n.services.status().blockers ? undefined : true));
const STARTED = { seq: 1, attempt: 1, time: "2026-12-04T11:00:00.000Z", type: "attempt.started", level: "info", message: "install attempt 1 started by a person", data: { kind: "install", startedBy: "person" } };
const lines = (events: object[]) => events.map((e) => `${JSON.stringify(e)}\n`).join("");

/** A node started once, then its state dir as a lost store leaves it: attempt 1's events as given, installer.json damaged. */
async function lostStore(t: TestContext, events: object[]) {
  const first = await node(t);
  await first.services.start();
  await noBlockers(first);
  await first.services.stop();
  const layout = stateLayout(first.settings.stateDir);
  await mkdir(layout.events, { recursive: true });
  await writeFile(layout.eventsOf(1), lines(events));
  await writeFile(layout.store, "{ damaged");
  return { first, ...layout };
}

/** Its one blocker, once the payload's verification is over. */
const theBlocker = (n: WiredNode) =>
  passing(n, "the blocker alone", () => {
    const blockers = n.services.status().blockers;
    return blockers?.length === 1 && blockers[0]!.code !== "PAYLOAD_VERIFYING" ? blockers[0] : undefined;
  });

describe("createServices: one store, each service on its slice, wired to each other", () => {
  test("status and options before anything happened: configuring, the host's own name and first interface with an address, the payload's release", async (t) => {
    const n = await node(t);
    assert.deepEqual(await n.services.start(), []);
    await noBlockers(n);
    assert.deepEqual(n.services.status(), { phase: "configuring", version: "0.0.0-test", mode: "single-node", profile: n.services.status().profile, hostname: n.host.hostname, url: "https://10.20.0.11:9443", configValid: false, attempt: 0 });
    const options = n.services.options();
    assert.equal(options.defaults.mode, "single-node");
    assert.equal(options.defaults.hostname, n.host.hostname);
    assert.equal(options.defaults.network.interface, n.host.interfaces.find((i) => i.up && i.addresses.length > 0)!.name);
    assert.equal(options.release, "2026.11.0");
    assert.equal(n.services.tls(), undefined, "an in-process app serves no certificate");
  });

  test("no payload: the install is blocked, and the status says so", async (t) => {
    const n = await node(t, { payload: false });
    await n.services.start();
    assert.deepEqual(n.services.status().blockers?.map((b) => b.code), ["PAYLOAD_NOT_LOADED"]);
    await n.services.draft.replace({ source: "structured", config: VALID_DRAFT }, undefined);
    await assert.rejects(n.services.attempts.begin("install"), { code: "INSTALL_BLOCKED" });
  });

  test("a person's install runs to done through the attempts service; the status follows it", async (t) => {
    const n = await node(t);
    await n.services.start();
    await noBlockers(n);
    await n.services.draft.replace({ source: "structured", config: VALID_DRAFT }, undefined);
    const started = await n.services.attempts.begin("install");
    assert.deepEqual(started, { attempt: 1, phase: "installing", eventsUrl: "/v1/installer/install/events?attempt=1" });
    await passing(n, "done", () => (n.services.status().phase === "done" ? true : undefined));
    assert.equal(n.services.attempts.verdict().outcome, "succeeded");
    assert.equal(n.services.status().attempt, 1);
  });

  test("stage 1's node.yaml waits on the payload, and starts by itself once the payload is verified (payload → unattended)", async (t) => {
    const n = await node(t, { payload: false, handoff: VALID_NODE_YAML });
    const notices = await n.services.start();
    assert.deepEqual(notices, [`took ${n.handoff} as the draft for an unattended install: blocked by PAYLOAD_NOT_LOADED; it starts by itself once they clear (GET /status lists them with how to fix each)`]);
    assert.equal(n.services.status().unattended?.state, "blocked");
    await makePayload(n.payload);
    const status = await passing(n, "the unattended install to start", () => (n.services.status().unattended?.state === "started" ? n.services.status() : undefined));
    assert.equal(status.unattended?.attempt, 1);
    assert.equal(n.services.attempts.list()[0]!.startedBy, "unattended");
    // To its end: a stop while the payload's listener is still starting the attempt would not stop it.
    await passing(n, "done", () => (n.services.status().phase === "done" ? true : undefined));
  });

  test("a person who edits the draft ends the unattended wait: the payload arriving then starts nothing (draft → unattended)", async (t) => {
    const n = await node(t, { payload: false, handoff: VALID_NODE_YAML });
    await n.services.start();
    await n.services.draft.replace({ source: "yaml", yaml: VALID_NODE_YAML.replace("node-01", "node-02") }, undefined);
    assert.equal(n.services.status().unattended?.autoStart, false);
    await makePayload(n.payload);
    await noBlockers(n);
    assert.equal(n.services.status().unattended?.state, "blocked");
    assert.equal(n.services.status().attempt, 0);
  });

  test("a store that did not parse, on a node whose firstboot has run (its events say so): an install is blocked, saying why and what to do; a node whose events show none is not", async (t) => {
    const { first, store, eventsOf } = await lostStore(t, [
      STARTED,
      { seq: 2, attempt: 1, time: "2026-12-04T11:05:00.000Z", type: "step.finished", step: "firstboot", level: "info", message: "firstboot succeeded", data: { outcome: "succeeded", durationMs: 5 } },
    ]);
    const again = await node(t, { folder: first.folder });
    await again.services.start();
    const blocker = await theBlocker(again);
    assert.equal(blocker!.code, "EARLIER_INSTALL_FOUND");
    assert.match(blocker!.detail, /^This node's events show that firstboot ran \(attempt 1, 2026-12-04T11:05:00.000Z\), but its store has no record of that attempt \(lost, or kept aside as damaged\): an install now would run firstboot again\. Restore the store \(installer\.json\) from a backup; or, to install this node again on purpose, move .*\/events away and restart the installer\.$/);

    // A restart on the fresh store it started with keeps the block: the events still show what the store lost.
    await again.services.stop();
    const restarted = await node(t, { folder: first.folder });
    await restarted.services.start();
    await passing(restarted, "the blocker after a restart", () => restarted.services.status().blockers?.find((b) => b.code === "EARLIER_INSTALL_FOUND"));
    await restarted.services.stop();

    // An events entry that cannot be read (a folder in its place) shows nothing, and stops no start.
    await rm(eventsOf(1));
    await mkdir(eventsOf(1));
    await writeFile(store, "{ damaged");
    const unreadable = await node(t, { folder: first.folder });
    await unreadable.services.start();
    await noBlockers(unreadable);
    await unreadable.services.stop();
    await rm(eventsOf(1), { recursive: true });
    await writeFile(eventsOf(1), lines([STARTED]));

    // Without a firstboot that ran, a lost store is a fresh start, as SPEC says.
    await writeFile(store, "{ damaged");
    const fresh = await node(t, { folder: first.folder });
    await fresh.services.start();
    await noBlockers(fresh);
  });

  test("a lost store, on a node whose events show firstboot started and not how it ended (killed mid-run): an install is blocked, saying it may have run; one whose firstboot failed is not", async (t) => {
    const started = [
      STARTED,
      { seq: 2, attempt: 1, time: "2026-12-04T11:01:00.000Z", type: "step.started", step: "firstboot", level: "info", message: "firstboot started" },
      { seq: 3, attempt: 1, time: "2026-12-04T11:02:00.000Z", type: "step.log", step: "firstboot", level: "info", message: "wiping /dev/sdb" },
    ];
    const { first, store, eventsOf } = await lostStore(t, started);
    const again = await node(t, { folder: first.folder });
    await again.services.start();
    const blocker = await theBlocker(again);
    assert.equal(blocker!.code, "EARLIER_INSTALL_FOUND");
    assert.match(blocker!.detail, /^This node's events show that firstboot started \(attempt 1, 2026-12-04T11:01:00.000Z\) and not how it ended, and its store has no record of that attempt \(lost, or kept aside as damaged\): firstboot may have run, and an install now would run it again\. Check the node first\. Restore the store \(installer\.json\) from a backup; or, to install this node again on purpose, move .*\/events away and restart the installer\.$/);
    await again.services.stop();

    // A firstboot that failed is one a recorded attempt would also let an install retry: no block.
    await writeFile(eventsOf(1), lines([...started, { seq: 4, attempt: 1, time: "2026-12-04T11:03:00.000Z", type: "step.finished", step: "firstboot", level: "error", message: "firstboot failed", data: { outcome: "failed", durationMs: 5 } }]));
    await writeFile(store, "{ damaged");
    const failed = await node(t, { folder: first.folder });
    await failed.services.start();
    await noBlockers(failed);
  });

  test("an attempt left running by a killed installer is failed at the next start, and the notice says so", async (t) => {
    const first = await node(t);
    await first.services.start();
    await noBlockers(first);
    first.opened.store.slice("attempts").set([{ attempt: 1, kind: "install", startedBy: "person", state: "running", step: "readiness", startedAt: "2026-12-04T11:00:00.000Z", steps: [], config: { source: "structured", config: {} }, payloadVersion: null, firstbootTail: [], readinessHistory: [] }]);
    await first.opened.store.slice("attempts").save();
    await first.services.stop();
    const again = await node(t, { folder: first.folder });
    assert.deepEqual(await again.services.start(), ["attempt 1 was interrupted at readiness; its verdict says recheckReadiness"]);
    assert.equal(again.services.status().phase, "failed");
    assert.equal(again.services.attempts.verdict().code, "INTERRUPTED");
  });
});
