import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NodeApi, Report, Verdict } from "../../../cli/fleet/api.ts";
import { execFileSync } from "node:child_process";
import { chmod, lstat, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Connection } from "../../../cli/fleet/connect.ts";
import type { LoadedPlan } from "../../../cli/fleet/plan.ts";
import { REPORT_KEEP_BYTES, bundlesCouldTell, confirmation, exitCode, nodeAnswers, reportText, writeReport } from "../../../cli/fleet/report.ts";
import type { Outcome } from "../../../cli/fleet/node-run.ts";
import { fill, noTmpfs, tmpfsFor } from "../../helpers/full-disk.ts";
import { ROOT, tempDir } from "../../helpers/installer.ts";

const TOKEN = "STRATUM1:5a5a:join-secret";
const codeOf = (node: string) => `code-of-${node}`;

/** A report of `count` nodes, each answering with its own code, the join token and some 2 KB of firstboot lines. */
function document(count: number, cluster = "rack-1") {
  const nodes = Array.from({ length: count }, (_, i) => {
    const name = `node-${String(i + 1).padStart(4, "0")}`;
    const tail = Array.from({ length: 30 }, (_, k) => `firstboot: stage ${k} of node ${name} went well`);
    return { name, role: "join", installer: "https://127.0.0.1:9443", outcome: null, verdict: { message: `installed with ${codeOf(name)}` }, report: { token: TOKEN, firstbootTail: tail } };
  });
  return { plan: "plan.yaml", planHash: "h", cluster, writtenAt: new Date(0).toISOString(), exit: 0, nodes };
}


describe("fleet: the report", () => {
  it("each node's entry is redacted of the join token and its install code; the rest of every code", () => {
    const text = reportText(document(3, codeOf("node-0002")), [TOKEN], codeOf);
    assert.ok(!text.includes("code-of-") && !text.includes(TOKEN), text);
    const parsed = JSON.parse(text);
    assert.equal(parsed.cluster, "[redacted]");
    assert.deepEqual(parsed.nodes[1].verdict, { message: "installed with [redacted]" });
    assert.equal(parsed.nodes[2].report.token, "[redacted]");
  });

  it("a node's text with C1 controls and bidi overrides is written out in the report's JSON, which parses back to it", () => {
    const doc = document(1, "c");
    (doc.nodes[0] as { verdict: unknown }).verdict = { message: "disk \u009b2J \u202ebusy" };
    const text = reportText(doc, [], () => "code");
    assert.doesNotMatch(text, /[\u0080-\u009f\u202e]/);
    assert.match(text, /disk \\u009b2J \\u202ebusy/);
    assert.equal(JSON.parse(text).nodes[0].verdict.message, "disk \u009b2J \u202ebusy");
  });
});

describe("fleet: the report beside another plan's", () => {
  /** A plan of `cluster` with no node: what writeReport reads of a loaded plan and its connection. */
  const planOf = (cluster: string) => ({ file: `${cluster}.yaml`, hash: `hash-of-${cluster}`, plan: { cluster: { name: cluster } }, nodes: [] }) as unknown as LoadedPlan;
  const none = { connected: [] } as unknown as Connection;

  it("another cluster's fleet-report.json (two plans in one folder) is moved aside, named after its cluster, not written over; the same cluster's is replaced", async () => {
    const folder = await tempDir("stratum-report-");
    const path = join(folder, "fleet-report.json");
    assert.deepEqual(await writeReport(path, planOf("rack-a"), none, new Map(), 0, []), {});
    const rackA = await readFile(path, "utf8");
    assert.deepEqual(await writeReport(path, planOf("rack-b"), none, new Map(), 0, []), { movedAside: { cluster: "rack-a", to: join(folder, "fleet-report.rack-a.json") } });
    assert.equal(await readFile(join(folder, "fleet-report.rack-a.json"), "utf8"), rackA, "rack-a's report kept whole");
    assert.equal(JSON.parse(await readFile(path, "utf8")).cluster, "rack-b");
    assert.deepEqual(await writeReport(path, planOf("rack-b"), none, new Map(), 1, []), {}, "a run again of the same cluster replaces its own");
    assert.equal(JSON.parse(await readFile(path, "utf8")).exit, 1);
    assert.deepEqual((await readdir(folder)).sort(), ["fleet-report.json", "fleet-report.rack-a.json"]);
  });

  it("a report over 2 MiB (a node's own is 10–100 KB: a few dozen nodes) is known by its cluster as a small one is: the same cluster's replaced, another's moved aside under its name", async () => {
    const folder = await tempDir("stratum-report-");
    const path = join(folder, "fleet-report.json");
    const big = (cluster: string) => ({ ...document(1500, cluster), plan: `${cluster}.yaml`, planHash: `hash-of-${cluster}` });
    await writeFile(path, reportText(big("rack-a"), [], codeOf));
    assert.ok((await lstat(path)).size > 2 * 1024 * 1024);
    assert.deepEqual(await writeReport(path, planOf("rack-a"), none, new Map(), 0, []), {}, "a run again of the same cluster replaces its own, however big");
    await writeFile(path, reportText(big("rack-b"), [], codeOf));
    assert.deepEqual(await writeReport(path, planOf("rack-a"), none, new Map(), 0, []), { movedAside: { cluster: "rack-b", to: join(folder, "fleet-report.rack-b.json") } });
    assert.deepEqual((await readdir(folder)).sort(), ["fleet-report.json", "fleet-report.rack-b.json"]);
  });

  it("a report that cannot be written (a full disk) leaves another cluster's where it was: nothing moved that no line names", async (t) => {
    if (noTmpfs) return t.skip(noTmpfs);
    const mount = join(await tempDir("stratum-report-"), "mnt");
    if (!(await tmpfsFor(t, mount, "64k"))) return;
    const path = join(mount, "fleet-report.json");
    await writeReport(path, planOf("rack-a"), none, new Map(), 0, []);
    const rackA = await readFile(path, "utf8");
    fill(mount);
    await assert.rejects(writeReport(path, planOf("rack-b"), none, new Map(), 0, []), { code: "ENOSPC" });
    assert.equal(await readFile(path, "utf8"), rackA, "rack-a's report where it was");
    assert.deepEqual((await readdir(mount)).filter((name) => name.startsWith("fleet-report")), ["fleet-report.json"]);
  });

  it("a file there that is no report (damaged, or not the fleet's) is moved aside too, never written over", async () => {
    const folder = await tempDir("stratum-report-");
    const path = join(folder, "fleet-report.json");
    await writeFile(path, "my notes\n");
    assert.deepEqual(await writeReport(path, planOf("rack-a"), none, new Map(), 0, []), { movedAside: { cluster: undefined, to: join(folder, "fleet-report.other.json") } });
    assert.equal(await readFile(join(folder, "fleet-report.other.json"), "utf8"), "my notes\n");
    // A named pipe there is not read (the run's end would wait for a writer): moved aside as it is.
    await rm(path);
    execFileSync("mkfifo", [path]);
    assert.deepEqual(await writeReport(path, planOf("rack-a"), none, new Map(), 0, []), { movedAside: { cluster: undefined, to: join(folder, "fleet-report.other-2.json") } });
    assert.ok((await lstat(join(folder, "fleet-report.other-2.json"))).isFIFO());
    assert.equal(JSON.parse(await readFile(path, "utf8")).cluster, "rack-a");
  });
});

describe("fleet: the report beside one this user cannot read", () => {
  it("another plan's report made by root (mode 0600) in a folder this user writes: moved aside unread, this run's written", { skip: process.getuid?.() !== 0 ? "needs root to run as another user" : undefined }, async () => {
    const folder = await tempDir("stratum-report-");
    const path = join(folder, "fleet-report.json");
    await writeFile(path, '{"plan":"rack-a.yaml","planHash":"a","cluster":"rack-a"}\n', { mode: 0o600 });
    const nobody = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
    await chmod(folder, 0o777);
    const script = `import { writeReport } from ${JSON.stringify(join(ROOT, "cli/fleet/report.ts"))};
const loaded = { file: "rack-b.yaml", hash: "b", plan: { cluster: { name: "rack-b" } }, nodes: [] };
process.stdout.write(JSON.stringify(await writeReport(${JSON.stringify(path)}, loaded, { connected: [] }, new Map(), 0, [])));`;
    const written = JSON.parse(execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { uid: nobody, gid: nobody, cwd: ROOT, encoding: "utf8" }));
    // As JSON from the child: its cluster, unknown, is undefined and left out.
    assert.deepEqual(written, { movedAside: { to: join(folder, "fleet-report.other.json") } });
    assert.equal(JSON.parse(await readFile(path, "utf8")).cluster, "rack-b");
    assert.equal(JSON.parse(await readFile(join(folder, "fleet-report.other.json"), "utf8")).cluster, "rack-a", "root's report kept whole");
  });
});

describe("fleet: a node's report as the fleet keeps it", () => {
  const VERDICT = { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, message: "installed", next: "none" } as Verdict;
  const report = (extra: Record<string, unknown>) => ({ attempt: 1, kind: "install", state: "succeeded", verdict: VERDICT, ...extra }) as unknown as Report;
  const answering = (r: Report) => ({ verdict: async () => VERDICT, report: async () => r }) as unknown as NodeApi;
  let deep: unknown = [];
  for (let i = 0; i < 100_000; i++) deep = [deep];

  for (const [what, big, why] of [
    ["nested deeper than a stack goes", report({ config: { config: { deep } } }), /cannot be written as JSON/],
    ["over the size kept a node", report({ firstbootTail: ["x".repeat(REPORT_KEEP_BYTES)] }), /is 1\.0 MiB, over the 1 MiB kept a node/],
  ] as const) {
    it(`a report ${what}: its attempt, state and verdict kept (the node still confirmed), the rest said to be on the node; the fleet's report is still written`, async () => {
      const answers = await nodeAnswers(answering(big), VERDICT);
      const keptReport = answers.report as unknown as Record<string, unknown>;
      assert.deepEqual(Object.keys(keptReport).sort(), ["attempt", "omitted", "state", "verdict"]);
      assert.match(String(keptReport.omitted), why);
      assert.match(String(keptReport.omitted), /GET \/v1\/installer\/install\/report\?attempt=1\)$/);
      assert.equal(confirmation("its verdict said succeeded", answers), undefined);
      const text = reportText({ plan: "p", planHash: "h", cluster: "c", writtenAt: "t", exit: 0, nodes: [{ name: "n1", role: "join", installer: "https://x", outcome: null, verdict: answers.verdict, report: answers.report }] }, [], codeOf);
      assert.ok(text.length < 10_000);
    });
  }

  it("a verdict over the size kept (a lying node's: megabytes of message, thousands of checks), asked or in a report: its fields kept, its message and checks cut, the rest said to be on the node", async () => {
    const checks = Array.from({ length: 10_000 }, (_, i) => ({ name: "reachable", ok: false, code: "JOIN_UNREACHABLE", detail: `check ${i} ${"x".repeat(1000)}` }));
    const lying = { ...VERDICT, message: `installed ${"y".repeat(8 * 1024 * 1024)}`, checks } as unknown as Verdict;
    const answers = await nodeAnswers({ verdict: async () => lying, report: async () => report({ verdict: lying }) } as unknown as NodeApi);
    for (const [where, kept] of [["asked", answers.verdict], ["in the report", (answers.report as unknown as { verdict: Verdict }).verdict]] as const) {
      const size = Buffer.byteLength(JSON.stringify(kept));
      assert.ok(size <= 64 * 1024, `${where}: ${size} bytes kept`);
      const { message, checks: keptChecks, omitted, ...rest } = kept as Verdict & { omitted?: string };
      assert.deepEqual(rest, { attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, next: "none" }, where);
      assert.ok(message.startsWith("installed yyy"), where);
      assert.ok(keptChecks!.length > 0 && keptChecks!.length <= 50, `${where}: ${keptChecks!.length} checks`);
      assert.match(String(omitted), /^cut: it is 1[78]\.\d MiB, over the 64 KiB kept a verdict; read it whole on the node \(GET \/v1\/installer\/install\/verdict\?attempt=1\)$/, where);
    }
    assert.equal(confirmation("its verdict said succeeded", answers), undefined, "still confirmed by its fields");
  });

  it("a report of a node's usual size is kept whole", async () => {
    const usual = report({ firstbootTail: Array.from({ length: 50 }, (_, i) => `line ${i}`) });
    assert.equal((await nodeAnswers(answering(usual), VERDICT)).report, usual);
  });
});

describe("fleet: the run's exit code (SPEC §10.6)", () => {
  const outcomes = (...kinds: Outcome["kind"][]) => new Map(kinds.map((kind, i) => [`node-${i + 1}`, { kind, detail: "", attempt: 1 } satisfies Outcome]));
  it("0 when every node installed; 1 when one failed or was not started; 2 when one is unreachable or refused, whatever the others did", () => {
    const cases: [Outcome["kind"][], number][] = [
      [["installed", "installed", "installed"], 0],
      [["installed", "failed", "installed"], 1],
      [["installed", "stopped", "installed"], 1],
      [["failed", "stopped"], 1],
      [["installed", "unreachable", "installed"], 2],
      [["installed", "refused"], 2],
      [["failed", "unreachable"], 2],
      [["refused", "failed", "stopped"], 2],
    ];
    for (const [kinds, exit] of cases) assert.equal(exitCode(outcomes(...kinds)), exit, kinds.join(", "));
  });
});

describe("fleet: whether the nodes' support bundles could tell what went wrong (the run's last line names the command that gathers them)", () => {
  const outcomes = (...kinds: Array<Outcome["kind"]>) => new Map(kinds.map((kind, i): [string, Outcome] => [`node-0${i + 1}`, { kind, detail: kind, attempt: 0 }]));
  it("a node failed, or went out of reach: yes, whatever else the run says", () => {
    for (const run of [outcomes("failed", "stopped"), outcomes("installed", "failed"), outcomes("installed", "unreachable"), outcomes("installed", "refused", "failed")]) {
      assert.equal(bundlesCouldTell(run.values()), true, [...run.values()].map((o) => o.kind).join(","));
    }
  });
  it("no node failed: not for the fleet's own trouble (nodes not started as their start could not be recorded), nor for a refusal (its bundle is asked with the same certificate and code, and refused the same way), nor for a run all installed", () => {
    for (const run of [outcomes("stopped", "stopped"), outcomes("installed", "stopped"), outcomes("installed", "refused"), outcomes("refused", "stopped"), outcomes("installed", "installed"), outcomes()]) {
      assert.equal(bundlesCouldTell(run.values()), false, [...run.values()].map((o) => o.kind).join(","));
    }
  });
});
