import assert from "node:assert/strict";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { connect, type TLSSocket } from "node:tls";
import { spawn } from "node:child_process";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { startRig } from "../helpers/fleet.ts";
import { finished, install, putDraft } from "../helpers/install-rig.ts";
import { BUNDLE, ROOT, bundleNode, harness, logLines, persistedStore, tempDir, untilNoBlockers, waitFor, writeFirstboot } from "../helpers/installer.ts";

const lab = harness();

/** A node that runs with `ulimit -n` at `limit` (soft and hard: Node raises its soft limit to the hard one). */
async function limitedNode(folder: string, limit: number): Promise<string> {
  const path = join(folder, "node-limited");
  await writeFile(path, `#!/bin/sh\nulimit -n ${limit} || exit 97\nexec "${await bundleNode()}" "$@"\n`);
  await chmod(path, 0o755);
  return path;
}

/** An event stream asked for on a connection of its own; settled once it answered or was closed. */
function streamOn(port: number, code: string): { socket: TLSSocket; settled: Promise<"answered" | "closed"> } {
  const socket = connect({ port, host: "127.0.0.1", rejectUnauthorized: false }, () => {
    socket.write(`GET /v1/installer/install/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${code}\r\n\r\n`);
  });
  socket.on("error", () => undefined);
  const settled = new Promise<"answered" | "closed">((resolve) => {
    socket.once("data", () => resolve("answered"));
    socket.once("close", () => resolve("closed"));
  });
  return { socket, settled };
}

// Under ulimit -n 64 the installer served 32 connections at least, leaving too few files: each stream's replay of the
// events failed with EMFILE (a stack trace on stderr a stream), and under 40 the attempt itself failed STATE_WRITE_FAILED.
test("ulimit -n 64 and 100 event streams opened while firstboot floods: the start says the limit is low, the refusals are one log line, no file is refused, /status answers once they close, and the attempt succeeds with its store intact", async () => {
  const folder = await tempDir();
  const stateDir = join(folder, "state");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready", stageMs: 50 });
  lab.defer(() => readiness.close());
  // Floods 2,000 lines, then waits for ./go.
  const firstboot = await writeFirstboot(folder, `#!/bin/sh\nd="$(dirname "$0")"\ni=0\nwhile [ $i -lt 2000 ]; do i=$((i+1)); echo "line $i"; done\nwhile [ ! -e "$d/go" ]; do sleep 0.05; done\necho "firstboot: done"\n`);
  const installer = await lab.start({
    stateDir,
    node: await limitedNode(folder, 64),
    args: ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "30", "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  await putDraft(installer);
  const { attempt } = await install(installer);

  const streams = Array.from({ length: 100 }, () => streamOn(installer.port, installer.code));
  lab.defer(() => streams.forEach(({ socket }) => socket.destroy()));
  const outcomes = await Promise.all(streams.map(({ settled }) => settled));
  const answered = outcomes.filter((o) => o === "answered").length;
  const maxConnections = logLines(installer).find((line) => line.message === "listening")!.maxConnections;
  assert.ok(answered >= 1 && answered <= maxConnections, `${answered} answered, ${maxConnections} at most`);
  // The refused ones are said (the first at once), never dropped unsaid for want of a file.
  await waitFor("the refusals' log line", async () => (logLines(installer).some((line) => line.message === "connections refused") ? true : undefined));
  for (const { socket } of streams) socket.destroy();

  await waitFor("/status once the streams closed", async () => {
    const reply = await installer.request("/v1/installer/status").catch(() => undefined);
    return reply?.status === 200 ? reply : undefined;
  });
  await writeFile(join(folder, "go"), "");
  const verdict = await finished(installer, attempt);
  assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
  const { stderr } = installer.output();
  assert.doesNotMatch(stderr, /EMFILE|too many open files/);
  assert.equal(logLines(installer).filter((line) => line.message === "connections refused").length, 1, "one line for the refusals");
  assert.match(installer.banner, /the open-files limit \(64\) leaves room for \d+ connections? at once \(32 wanted\): raise it \(LimitNOFILE=/);
  // The store file whole (it parses) at each read, its record settled once its write is done.
  await waitFor("the store's verdict", async () => (await persistedStore(stateDir)).attempts.at(-1).verdict?.outcome);
  assert.equal((await persistedStore(stateDir)).attempts.at(-1).verdict.outcome, "succeeded");
});

/** `fleet ARGS` run by a node under `ulimit -n` at `limit`. */
async function limitedFleet(folder: string, limit: number, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(await limitedNode(folder, limit), [BUNDLE, "fleet", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => proc.on("close", (code) => resolve({ code, stdout, stderr })));
}

// Each node past the files the fleet had was said "unreachable: connect EMFILE", as if its installer were down.
test("fleet --parallel 10 under ulimit -n 24: one error naming the open-files limit and what to do, no node called unreachable, nothing changed; run again with room, it installs every node", async () => {
  const rig = await startRig(lab, { joins: 9 });
  const folder = await tempDir();
  const starved = await limitedFleet(folder, 24, [rig.planFile, "--parallel", "10"], rig.env);
  assert.equal(starved.code, 2, starved.stdout + starved.stderr);
  assert.doesNotMatch(starved.stdout, /unreachable|EMFILE/, starved.stdout);
  const errors = starved.stdout.split("\n").filter((line) => line.startsWith("[fleet] error: "));
  assert.deepEqual(errors, [
    "[fleet] error: this machine ran out of open files (the open-files limit is 24; the fleet keeps a connection to each of the plan's 10 nodes) while it connected to them: raise it (ulimit -n in this shell), then run this again",
    "[fleet] error: nothing was changed on any node",
  ]);
  const again = await rig.fleet(["--parallel", "10"], { timeoutMs: 120_000 });
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /10 of 10 nodes installed/);
});

test("fleet --support-bundle under ulimit -n 24: the bundles that did not come for want of files are said so, and the run ends naming the open-files limit and what to do; run again with room, every bundle comes", async () => {
  const rig = await startRig(lab, { joins: 9 });
  const folder = await tempDir();
  const starved = await limitedFleet(folder, 24, [rig.planFile, "--parallel", "10", "--support-bundle", join(folder, "bundles")], rig.env);
  assert.equal(starved.code, 1, starved.stdout + starved.stderr);
  assert.doesNotMatch(starved.stdout, /unreachable/, starved.stdout);
  const lines = starved.stdout.trimEnd().split("\n");
  assert.match(lines.at(-2)!, /^\[fleet\] error: \d+ of 10 support bundles gathered in /, starved.stdout);
  assert.equal(lines.at(-1), "[fleet] error: this machine ran out of open files for some of them (the open-files limit is 24): run this again with a lower --parallel, or raise it (ulimit -n in this shell)");
  const again = await rig.fleet(["--parallel", "10", "--support-bundle", join(folder, "bundles")]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /10 of 10 support bundles gathered/);
});
