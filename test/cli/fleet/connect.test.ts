import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { NodeApi } from "../../../cli/fleet/api.ts";
import { connectFleet } from "../../../cli/fleet/connect.ts";
import { loadPlan } from "../../../cli/fleet/plan.ts";
import { ASK_AT_ONCE } from "../../../cli/fleet/pool.ts";
import type { Draft } from "../../../core/config/index.ts";
import { renderNodeYaml } from "../../../core/config/node-yaml.ts";
import { SimNode } from "../../../bench/sim/node.ts";
import { fakeInstaller, planText } from "../../helpers/fake-node.ts";
import { tempDir, waitFor } from "../../helpers/installer.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Simulated installers (bench/sim/node.ts, the API's happy path), the init node the one at `initAt`; `around` may hold a node's request. */
async function checks(t: TestContext, count: number, initAt: number, around: (index: number, req: IncomingMessage, answer: () => void, res: ServerResponse) => void) {
  const nodes = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const sim = new SimNode({ name: `node-${i + 1}`, role: i === initAt ? "init" : "join", code: "abcd-efgh-ijkl", attemptMs: 0 });
      const handler: Handler = (req, res) => around(i, req, () => void sim.handle(req, res), res);
      return fakeInstaller(t, handler);
    }),
  );
  const file = join(await tempDir("stratum-connect-"), "cluster.yaml");
  await writeFile(file, planText(nodes, initAt));
  const plan = await loadPlan(file, {});
  assert.ok(plan.ok, JSON.stringify(!plan.ok && plan.problems.slice(0, 3)));
  return { plan: plan.loaded, nodes };
}

async function writeAndLoad(file: string, text: string) {
  await writeFile(file, text);
  const plan = await loadPlan(file, {});
  assert.ok(plan.ok, JSON.stringify(!plan.ok && plan.problems.slice(0, 3)));
  return plan.loaded;
}

describe("fleet: the checks before anything changes (SPEC §10.2)", () => {
  it("a node's draft is validated as soon as it is read: the validations do not wait for the slowest node's status", { timeout: 30_000 }, async (t) => {
    let validated!: () => void;
    const someValidated = new Promise<void>((resolve) => (validated = resolve));
    // The last node answers its status only once another node's draft was validated: with a barrier between reading every node and validating, never.
    const { plan } = await checks(t, 3, 0, (i, req, answer) => {
      if (req.url?.endsWith("/config/validate")) validated();
      if (i === 2 && req.url?.endsWith("/status")) return void someValidated.then(answer);
      answer();
    });
    const connection = await connectFleet(plan);
    assert.deepEqual([connection.failures, connection.problems, connection.draftProblems, connection.rows.map((r) => r.draft)], [[], [], [], ["valid", "valid", "valid"]]);
  });

  it(`the init node is read first, wherever the plan puts it: with more than ${ASK_AT_ONCE} nodes and the init node last, every node is read and validated`, { timeout: 30_000 }, async (t) => {
    const asked: string[] = [];
    const count = ASK_AT_ONCE + 2;
    const { plan } = await checks(t, count, count - 1, (i, req, answer) => {
      asked.push(`${i} ${req.method} ${req.url}`);
      answer();
    });
    const connection = await connectFleet(plan);
    assert.equal(connection.rows.filter((r) => r.draft === "valid").length, count);
    assert.equal(asked[0], `${count - 1} GET /v1/installer/status`);
  });

  it("an installed init node whose join token names another cluster than the plan's is a problem before anything changes: its token would join the nodes to that cluster", { timeout: 30_000 }, async (t) => {
    const { plan, nodes } = await checks(t, 3, 0, (_i, _req, answer) => answer());
    // node-1 installed before, by no draft of this plan's: the cluster it founded is the simulation's own, "sim".
    const init = new NodeApi({ url: nodes[0]!.url, pin: nodes[0]!.pin, code: "abcd-efgh-ijkl" });
    await init.install();
    await waitFor("node-1 installed", async () => ((await init.status()).phase === "done" ? true : undefined));
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.problems, [`node-1 is installed as the init node of cluster "sim", not of the plan's cluster "lab-1": its join token would join the nodes to that cluster. Use the plan of that cluster, or an init node not yet installed`]);
    assert.equal(connection.joinToken, undefined);
  });

  it("an installed join node of another cluster than the plan's is a problem before anything changes: an installed node keeps the cluster it joined", { timeout: 30_000 }, async (t) => {
    const { plan, nodes } = await checks(t, 3, 0, (_i, _req, answer) => answer());
    // node-2 installed before, as a member of another rack's cluster.
    const reused = new NodeApi({ url: nodes[1]!.url, pin: nodes[1]!.pin, code: "abcd-efgh-ijkl" });
    const { view, etag } = await reused.config();
    await reused.putConfig({ ...(view.config as object), mode: "hyperconverged-join", cluster: { name: "rack-9" } } as never, etag);
    await reused.install();
    await waitFor("node-2 installed", async () => ((await reused.status()).phase === "done" ? true : undefined));
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.problems, [`node-2 is installed as a member of cluster "rack-9", not of the plan's cluster "lab-1": an installed node keeps the cluster it joined. Take it out of the plan, or reinstall it before it joins`]);
  });

  it("an installed init node whose join token is not one (a lying or broken init) is a problem before anything changes: no join is given it", { timeout: 30_000 }, async (t) => {
    const { plan, nodes } = await checks(t, 3, 0, (i, req, answer, res) => {
      if (i !== 0 || !req.url?.endsWith("/cluster/join-token")) return answer();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token: "STRATUM1:not-a-fingerprint:x", joinAddress: "10.20.0.10:8443", cluster: "lab-1", release: null }));
    });
    const init = new NodeApi({ url: nodes[0]!.url, pin: nodes[0]!.pin, code: "abcd-efgh-ijkl" });
    await init.install();
    await waitFor("node-1 installed", async () => ((await init.status()).phase === "done" ? true : undefined));
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.problems, [
      "node-1 is installed as the init node, but the join token it gives is not a join token (expected STRATUM1:<fingerprint>:<secret>): its fingerprint is not 64 lowercase hex digits (a SHA-256); no join is given it",
    ]);
    assert.equal(connection.joinToken, undefined);
  });

  // The plan's role: init moved to another node after a run installed the first: the fleet went on, its new init
  // founding a second cluster of the same name, the joins joined to it, the first init left alone in its own.
  it("a node installed as the init node while the plan now gives it role: join is a problem before anything changes: the plan's init would found a second cluster", { timeout: 30_000 }, async (t) => {
    const { nodes } = await checks(t, 3, 0, (_i, _req, answer) => answer());
    const folder = await tempDir("stratum-connect-");
    const earlier = await writeAndLoad(join(folder, "earlier.yaml"), planText(nodes, 1));
    const second = new NodeApi({ url: nodes[1]!.url, pin: nodes[1]!.pin, code: "abcd-efgh-ijkl" });
    await second.putConfig(earlier.nodes[1]!.draft());
    await second.install();
    await waitFor("node-2 installed", async () => ((await second.status()).phase === "done" ? true : undefined));
    const connection = await connectFleet(await writeAndLoad(join(folder, "cluster.yaml"), planText(nodes, 0)));
    assert.deepEqual(connection.problems, [
      "node-2 is installed as hyperconverged-init (it founded the cluster), but the plan gives it role: join: the plan's init node-1 would found a second cluster. Give node-2 role: init again (and node-1 role: join), or reinstall node-2 before it joins",
    ]);
  });

  it("nodes that carry different payload releases (one another release, one none loaded) are a problem before anything changes, naming each node's (SPEC §10.2)", { timeout: 30_000 }, async (t) => {
    const releases: (string | null)[] = [null, "2026.01.0", null];
    const { plan } = await checks(t, 3, 0, (i, req, answer, res) => {
      if (i === 0 || !req.url?.endsWith("/options")) return answer();
      // The simulation's own answer, its release replaced: node-2 another release, node-3 none loaded.
      const end = res.end.bind(res);
      const writeHead = res.writeHead.bind(res);
      res.writeHead = ((status: number, headers: OutgoingHttpHeaders) => writeHead(status, Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "content-length")))) as never;
      res.end = ((text: string) => end(JSON.stringify({ ...JSON.parse(text), release: releases[i] }))) as never;
      answer();
    });
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.problems, ["the nodes carry different payload releases (node-1 2026.12.0-sim, node-2 2026.01.0, node-3 none loaded): every node of a cluster installs the same release"]);
    assert.deepEqual(connection.rows.map((r) => r.release), ["2026.12.0-sim", "2026.01.0", null]);
  });

  it("nodes none of which has a payload loaded are not said to carry different releases: the problem says none has one", { timeout: 30_000 }, async (t) => {
    const { plan } = await checks(t, 2, 0, (_i, req, answer, res) => {
      if (!req.url?.endsWith("/options")) return answer();
      const end = res.end.bind(res);
      const writeHead = res.writeHead.bind(res);
      res.writeHead = ((status: number, headers: OutgoingHttpHeaders) => writeHead(status, Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "content-length")))) as never;
      res.end = ((text: string) => end(JSON.stringify({ ...JSON.parse(text), release: null }))) as never;
      answer();
    });
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.problems, ["no node has a payload loaded (node-1, node-2): copy the same release's payload to every node"]);
  });

  it("a node busy for a moment (a 503 on one of its reads) is asked again: one busy answer does not end the run with nothing changed", { timeout: 30_000 }, async (t) => {
    let busy = 0;
    const { plan } = await checks(t, 2, 0, (i, req, answer, res) => {
      if (i !== 1 || !req.url?.endsWith("/options") || busy++ > 0) return answer();
      res.writeHead(503, { "content-type": "application/problem+json" }).end(JSON.stringify({ type: "about:blank", title: "Service Unavailable", status: 503, code: "INTERNAL", detail: "busy" }));
    });
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.failures, []);
    assert.equal(connection.connected.length, 2);
    assert.equal(busy, 2, "asked twice");
  });

  it("a node that answers its status with a problem is reachable: it failed, saying what it answered, its detail cut to a size", { timeout: 30_000 }, async (t) => {
    const { plan } = await checks(t, 2, 0, (i, req, answer, res) => {
      if (i !== 1 || !req.url?.endsWith("/status")) return answer();
      const errors = Array.from({ length: 500 }, (_, n) => ({ field: `f${n}`, message: "m".repeat(10_000) }));
      const body = { type: "about:blank", title: "Internal Server Error", status: 500, code: "INTERNAL", detail: `boom ${"x".repeat(200_000)}`, errors };
      res.writeHead(500, { "content-type": "application/problem+json" }).end(JSON.stringify(body));
    });
    const connection = await connectFleet(plan);
    const [failure] = connection.failures;
    assert.equal(failure?.kind, "failed");
    assert.match(failure!.detail, /^its installer answered 500 INTERNAL: boom x+ … \[cut 193\.3 KiB\]$/);
  });

  it("a node that answers its status with malformed HTTP (two Content-Lengths) is reachable and lies: it failed, naming the parser's code, not unreachable", { timeout: 30_000 }, async (t) => {
    const { plan, nodes } = await checks(t, 2, 0, (i, req, answer) => {
      if (i !== 1 || !req.url?.endsWith("/status")) return answer();
      req.socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}");
    });
    const connection = await connectFleet(plan);
    assert.deepEqual(
      connection.failures.map((f) => [f.node.name, f.kind, f.detail]),
      [["node-2", "failed", `${nodes[1]!.url.host} gave an answer that is not its installer's: malformed HTTP (HPE_UNEXPECTED_CONTENT_LENGTH: Duplicate Content-Length)`]],
    );
  });

  it("a node's blockers are problems on lines of their own, each cut to a size: at most 50, a detail at most 512 bytes", { timeout: 30_000 }, async (t) => {
    const blockers = Array.from({ length: 60 }, (_, n) => ({ code: `B${n}`, detail: "d".repeat(5000) }));
    const { plan } = await checks(t, 2, 0, (i, req, answer, res) => {
      if (i !== 1 || !req.url?.endsWith("/status")) return answer();
      const status = { phase: "configuring", version: "stratum-installer 1", profile: "single-node", hostname: "n", url: "https://n:9443", configValid: true, attempt: 0, blockers };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(status));
    });
    const { problems } = await connectFleet(plan);
    const blocked = problems.filter((p) => p.startsWith("node-2: B"));
    assert.equal(blocked.length, 50);
    assert.equal(blocked[0], `node-2: B0: ${"d".repeat(512)} … [cut 4.4 KiB]`);
  });
  /** node-2 installed before as a join, its draft (GET /config) the JSON text `config`: what a node that lies may say. */
  const installedWithDraft = (t: TestContext, config: string) =>
    checks(t, 2, 0, (i, req, answer, res) => {
      if (i !== 1 || !(req.url?.endsWith("/status") || req.url?.endsWith("/config"))) return answer();
      const status = { phase: "done", mode: "hyperconverged-join", version: "stratum-installer 1", profile: "hyperconverged", hostname: "node-2", url: "https://n:9443", configValid: true, attempt: 1 };
      const body = req.url.endsWith("/status") ? JSON.stringify(status) : `{"source":"structured","valid":true,"errors":[],"updatedAt":null,"config":${config}}`;
      res.writeHead(200, { "content-type": "application/json", etag: '"v1"' }).end(body);
    });

  it("an installed node whose draft nests deeper than the fleet's stack (a node that lies): its checks end, the plan differs at that field", { timeout: 30_000 }, async (t) => {
    const depth = 200_000;
    const { plan } = await installedWithDraft(t, `{"zzz":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`);
    const connection = await connectFleet(plan);
    assert.deepEqual(connection.failures, []);
    assert.match(connection.rows[1]!.draft, /^installed; the plan differs at .*\bzzz \(not re-applied\)$/);
  });

  it("an installed node whose draft differs from the plan at thousands of fields, each a long name: its row names 10 of them, each cut to a cell's size, and how many more", { timeout: 30_000 }, async (t) => {
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, n) => [`k${String(n).padStart(4, "0")}${"x".repeat(1000)}`, n]));
    const { plan } = await installedWithDraft(t, JSON.stringify(fields));
    const { rows } = await connectFleet(plan);
    const draft = rows[1]!.draft;
    assert.ok(draft.length < 4096, `${draft.length} characters`);
    assert.match(draft, /^installed; the plan differs at admin, cluster, hostname, k0000x{251} … \[cut 749 bytes\], (k000\dx+ … \[cut 749 bytes\], ){6}and 4997 more \(not re-applied\)$/);
  });
  it("an installed join whose draft names another cluster by a megabyte (a node that lies): the problem quotes the name cut to a cell's size", { timeout: 30_000 }, async (t) => {
    const { plan } = await installedWithDraft(t, JSON.stringify({ mode: "hyperconverged-join", cluster: { name: "r".repeat(1024 * 1024) } }));
    const { problems } = await connectFleet(plan);
    assert.equal(problems.length, 1, problems.map((p) => p.slice(0, 200)).join("\n"));
    assert.ok(problems[0]!.length < 4096, `${problems[0]!.length} characters`);
    assert.match(problems[0]!, /^node-2 is installed as a member of cluster "r{256} … \[cut 1023\.8 KiB\]", not of the plan's cluster "lab-1": /);
  });
  it("an installed node whose draft is a node.yaml (an unattended install) is compared with the plan as the structured draft it reads as: the same draft is no difference, a changed field is named alone", { timeout: 30_000 }, async (t) => {
    const rows = async (edit: (draft: Record<string, any>) => void) => {
      let yaml = "";
      const { plan } = await checks(t, 2, 0, (i, req, answer, res) => {
        if (i !== 1 || !(req.url?.endsWith("/status") || req.url?.endsWith("/config"))) return answer();
        const status = { phase: "done", mode: "hyperconverged-join", version: "stratum-installer 1", profile: "hyperconverged", hostname: "node-2", url: "https://n:9443", configValid: true, attempt: 1 };
        const body = req.url.endsWith("/status") ? status : { source: "yaml", yaml, valid: true, errors: [], updatedAt: null };
        res.writeHead(200, { "content-type": "application/json", etag: '"v1"' }).end(JSON.stringify(body));
      });
      const draft = structuredClone(plan.nodes[1]!.draft()) as Record<string, any>;
      edit(draft);
      yaml = renderNodeYaml(draft as Draft);
      return (await connectFleet(plan)).rows;
    };
    assert.equal((await rows(() => undefined))[1]!.draft, "installed");
    assert.equal((await rows((draft) => (draft.timezone = "Europe/Berlin")))[1]!.draft, "installed; the plan differs at timezone (not re-applied)");
  });
});

