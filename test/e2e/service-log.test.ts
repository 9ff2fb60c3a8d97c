import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { BUNDLE, DEMO_HOST_FACTS, harness, httpsRaw, tempDir, untilNoBlockers, waitFor, writeFirstboot } from "../helpers/installer.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";

const lab = harness();

const JOIN_TOKEN = "jt-SECRET-4711-token";
const PASSWORD_HASH = "$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0";
const SECRET_DRAFT = { ...VALID_DRAFT, cluster: { joinToken: JOIN_TOKEN }, admin: { ...VALID_DRAFT.admin, passwordHash: PASSWORD_HASH } };

interface Line {
  time: string;
  level: string;
  message: string;
  [field: string]: unknown;
}

/** Every stderr line is one JSON event with a time, a level and a message. */
function parseLog(stderr: string): Line[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const entry = JSON.parse(line) as Line;
      assert.ok(!Number.isNaN(Date.parse(entry.time)) && entry.time.endsWith("Z"), line);
      assert.ok(["info", "warn", "error"].includes(entry.level), line);
      assert.equal(typeof entry.message, "string", line);
      return entry;
    });
}

const without = ({ time: _time, ...rest }: Line, ...fields: string[]) => Object.fromEntries(Object.entries(rest).filter(([name]) => !fields.includes(name)));

describe("the service log (stderr)", () => {
  test("a whole install, a wrong code and a lockout tell their story in JSON lines, with request ids and addresses and no secret", async () => {
    const folder = await tempDir();
    const readiness = await startReadinessServer({ port: 0, scenario: "progress", stageMs: 200 });
    lab.defer(() => readiness.close());
    const firstboot = await writeFirstboot(folder, `#!/bin/sh\necho "firstboot: configuring from $1"\ncat "$1"\n`);
    const installer = await lab.start({
      stateDir: join(folder, "state"),
      args: ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", "10", "--readiness-interval", "0.1"],
    });
    await untilNoBlockers(installer);

    const put = await installer.request("/v1/installer/config", { method: "PUT", body: SECRET_DRAFT });
    assert.equal(put.status, 200, put.text);
    const started = await installer.request("/v1/installer/install", { method: "POST" });
    assert.equal(started.status, 202, started.text);
    await waitFor("the verdict", async () => ((await installer.request("/v1/installer/install/verdict")).status === 200 ? true : undefined));

    const guesser = "127.0.0.9";
    const wrong = [];
    for (let i = 0; i < 5; i++) wrong.push(await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { code: `WRNG-CODE-000${i}`, localAddress: guesser }));
    assert.deepEqual(wrong.map((reply) => reply.status), [401, 401, 401, 401, 401]);
    assert.equal((await httpsRaw(`https://127.0.0.1:${installer.port}/v1/installer/status`, { code: installer.code, localAddress: guesser })).status, 429);

    await waitFor("the lockout line", async () => (installer.output().stderr.includes('"client locked out"') ? true : undefined));
    const { stderr } = installer.output();
    const log = parseLog(stderr);
    const named = (message: string) => log.filter((entry) => entry.message === message);
    const requestId = (reply: { headers: Record<string, unknown> }) => reply.headers["x-request-id"];

    assert.deepEqual(named("config changed").map((entry) => without(entry)), [
      { level: "info", message: "config changed", requestId: requestId(put), client: "127.0.0.1", change: "replace", source: "structured", revision: 1, valid: true, errors: 0 },
    ]);
    assert.deepEqual(named("attempt started").map((entry) => without(entry)), [
      { level: "info", message: "attempt started", requestId: requestId(started), client: "127.0.0.1", attempt: 1, kind: "install", startedBy: "person" },
    ]);
    const steps = log.filter((entry) => entry.message === "step started" || entry.message === "step finished");
    assert.deepEqual(steps.map((entry) => without(entry, "durationMs")), ["preflight", "write-config", "firstboot", "readiness"].flatMap((step) => [
      { level: "info", message: "step started", attempt: 1, step },
      { level: "info", message: "step finished", attempt: 1, step, outcome: "succeeded" },
    ]));
    for (const entry of named("step finished")) assert.equal(typeof entry.durationMs, "number");
    assert.deepEqual(named("readiness changed").map((entry) => entry.state), ["BOOTSTRAPPING", "CEPH_BOOTSTRAP", "READY"]);
    assert.ok(named("readiness changed").every((entry) => entry.attempt === 1));
    assert.deepEqual(named("attempt finished").map((entry) => without(entry)), [
      { level: "info", message: "attempt finished", attempt: 1, kind: "install", outcome: "succeeded", step: "readiness", code: null, next: "none" },
    ]);
    assert.deepEqual(named("wrong install code").map((entry) => without(entry, "requestId")), [1, 2, 3, 4, 5].map((failures) => ({ level: "warn", message: "wrong install code", client: guesser, failures })));
    assert.ok(named("wrong install code").every((entry) => typeof entry.requestId === "string" && entry.requestId !== ""));
    const [locked, ...more] = named("client locked out");
    assert.deepEqual(more, [], "the lock is logged once, not each refusal during it");
    assert.deepEqual(without(locked!, "requestId", "until"), { level: "warn", message: "client locked out", client: guesser, failures: 5 });
    const lockSeconds = (Date.parse(String(locked!.until)) - Date.parse(locked!.time)) / 1000;
    assert.ok(lockSeconds > 25 && lockSeconds <= 30, `locked for ${lockSeconds} s`);

    const order = log.map((entry) => entry.message).filter((message) => ["config changed", "attempt started", "attempt finished", "wrong install code"].includes(message));
    assert.deepEqual([...new Set(order)], ["config changed", "attempt started", "attempt finished", "wrong install code"], "one event a line, in the order they happened");
    for (const [name, secret] of [["install code", installer.code], ["join token", JOIN_TOKEN], ["password hash", PASSWORD_HASH], ["password hash's salt", "saltsalt"]] as const) {
      assert.ok(!stderr.includes(secret), `the log holds the ${name}`);
    }
    assert.ok(!installer.output().stdout.slice(installer.banner.length).includes("{"), "stdout has the banner, not the log");
  });

  test("with stderr the journal's stream (JOURNAL_STREAM names its device and inode), each line carries its sd-daemon priority", async () => {
    const folder = await tempDir();
    const journalFile = join(folder, "journal");
    const fd = openSync(journalFile, "w");
    const { dev, ino } = await stat(journalFile);
    const stateDir = join(folder, "state");
    const proc = spawn(process.execPath, [BUNDLE, "--listen", "127.0.0.1:0", "--state-dir", stateDir, "--host-facts", DEMO_HOST_FACTS, "--payload", join(folder, "none"), "--handoff", join(folder, "none/node.yaml")], {
      env: { ...process.env, JOURNAL_STREAM: `${dev}:${ino}` },
      stdio: ["ignore", "pipe", fd],
    });
    closeSync(fd);
    const exited = new Promise((resolve) => proc.on("exit", resolve));
    lab.defer(() => (proc.exitCode === null ? proc.kill("SIGKILL") : undefined));
    let stdout = "";
    proc.stdout!.on("data", (chunk) => (stdout += chunk));
    const port = await waitFor("the banner", async () => /listening on .*:(\d+)\)/.exec(stdout)?.[1]);
    const wrong = await httpsRaw(`https://127.0.0.1:${port}/v1/installer/status`, { code: "WRNG-CODE-0000" });
    assert.equal(wrong.status, 401);
    proc.kill("SIGTERM");
    await exited;

    const lines = (await readFile(journalFile, "utf8")).split("\n").filter(Boolean);
    const prefixed = lines.map((line) => /^<([0-7])>(\{.*\})$/.exec(line));
    assert.ok(prefixed.every(Boolean), lines.join("\n"));
    const byMessage = new Map(prefixed.map((match) => [JSON.parse(match![2]!).message as string, Number(match![1])]));
    assert.equal(byMessage.get("listening"), 6, "info is SD_INFO");
    assert.equal(byMessage.get("wrong install code"), 4, "warn is SD_WARNING");
    assert.equal(byMessage.get("stopping"), 6);
    assert.equal(byMessage.get("stopped"), 6, "the stop completed, said last");
    assert.equal(JSON.parse(prefixed.at(-1)![2]!).message, "stopped");
    assert.ok(!stdout.includes("<6>"), "the banner is not prefixed");
  });
});
