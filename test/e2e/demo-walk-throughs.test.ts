import assert from "node:assert/strict";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startDemo, verdictOf, type Demo } from "../helpers/demo.ts";
import { tempDir, waitFor } from "../helpers/installer.ts";
import { hasCurl, runWalkThrough, walkThrough } from "../helpers/walk-through.ts";

/** The guide's ports and .demo/ moved to this demo's. */
function movesFor(demo: Demo, demoDir: string): [string, string][] {
  return [
    ["127.0.0.1:9443", new URL(demo.api).host],
    [".demo/", `${demoDir}/`],
  ];
}

/** Each JSON answer ends its line, so no two answers (nor the reader's prompt) share one. */
function assertAnswersEndTheirLines(stdout: string): void {
  assert.doesNotMatch(stdout, /\}\{/, stdout);
}

describe("the guides' single-node walk-throughs, as written, against npm start's demo", { skip: !hasCurl && "curl is not installed (the walk-throughs' commands use it)" }, () => {
  test("README.md: a first install, with curl", async (t) => {
    const demoDir = await tempDir("stratum-walk-");
    const demo = await startDemo(t, demoDir);
    const { stdout } = await runWalkThrough(await walkThrough("README.md", "## A first install, with curl", movesFor(demo, demoDir)));
    assertAnswersEndTheirLines(stdout);
    assert.match(stdout, /^\{"phase":"configuring",.*"configValid":false/m, stdout);
    assert.match(stdout, /^\{"source":"structured",.*"valid":false,"errors":\[\{"field":"network.address"/m);
    assert.match(stdout, /^\{"source":"structured",.*"valid":true,"errors":\[\]/m);
    assert.match(stdout, /^\{"attempt":1,"phase":"installing"/m);
    assert.match(stdout, /^\{"attempt":1,"kind":"install","outcome":"succeeded",.*"next":"none"\}$/m);
    assert.equal((await verdictOf(demo, 1)).outcome, "succeeded");
    await access(join(demoDir, "etc/stratum/node.yaml"));
  });

  test("docs/curl.md: a failure and its recovery", async (t) => {
    const demoDir = await tempDir("stratum-walk-");
    const demo = await startDemo(t, demoDir, { DEMO_SCENARIO: "never", STRATUM_READINESS_TIMEOUT: "3" });
    const moves = movesFor(demo, demoDir);
    moves.push(["127.0.0.1:8443", new URL(demo.control).host]);
    const { stdout } = await runWalkThrough(await walkThrough("docs/curl.md", "## A failure and its recovery", moves));
    assertAnswersEndTheirLines(stdout);
    assert.match(stdout, /^\{"attempt":1,"kind":"install","outcome":"failed",.*"code":"READINESS_TIMEOUT",.*"next":"recheckReadiness"\}$/m, stdout);
    assert.match(stdout, /^\{"scenario":"ready"\}$/m);
    assert.match(stdout, /^\{"attempt":2,"kind":"recheck-readiness","outcome":"succeeded"/m);
  });

  test("docs/curl.md: an unattended install", async (t) => {
    const demoDir = await tempDir("stratum-walk-");
    const demo = await startDemo(t, demoDir, { DEMO_UNATTENDED: "1" });
    // A reader pastes after the banner; by then the payload check that the node.yaml may wait for has ended.
    await waitFor("the unattended install started", async () => (await demo.call("/status")).json.unattended?.state === "started" || undefined, 60_000);
    const { stdout } = await runWalkThrough(await walkThrough("docs/curl.md", "## An unattended install", movesFor(demo, demoDir)));
    assertAnswersEndTheirLines(stdout);
    assert.match(stdout, /^\{"phase":.*"unattended":\{"state":"started",.*"attempt":1\}\}$/m, stdout);
    assert.match(stdout, /^\{"attempt":1,"kind":"install","outcome":"succeeded"/m);
  });

  test("docs/integrators.md: a conditional install", async (t) => {
    const demoDir = await tempDir("stratum-walk-");
    const demo = await startDemo(t, demoDir);
    const { stdout } = await runWalkThrough(await walkThrough("docs/integrators.md", "## A conditional install", movesFor(demo, demoDir)));
    assertAnswersEndTheirLines(stdout);
    assert.match(stdout, /^\{"type":"urn:stratum:installer:problem:invalid-config",.*"status":422,/m, stdout);
    assert.match(stdout, /^\{"type":"urn:stratum:installer:problem:precondition-failed",.*"status":412,/m);
    assert.match(stdout, /^\{"attempt":1,"phase":"installing"/m);
    const ids = [...stdout.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.ok(ids.every((id) => id > 30), `Last-Event-ID: 30 resumes after event 30: ${ids.join(" ")}`);
    const verdict = await verdictOf(demo, 1);
    assert.equal(verdict.outcome, "succeeded");
    assert.equal((await demo.call("/config")).json.config.hostname, "node-11", "the install took the draft as changed in between");
  });
});
