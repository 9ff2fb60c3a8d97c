import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { connect as connectTcp, createServer as createNetServer } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { startReadinessServer, type ReadinessServer } from "../../demo/readiness-server.ts";
import { fakeInstaller } from "../helpers/fake-node.ts";
import { INIT_DRAFT, VALID_DRAFT } from "../helpers/fixtures.ts";
import { harness, ROOT, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { refusingServer } from "../helpers/refusing-server.ts";
import { extractBundle } from "../helpers/support-bundle.ts";

const lab = harness();
const missing = spawnSync("ansible", ["--version"]).status !== 0;

interface Node {
  installer: RunningInstaller;
  folder: string;
  cloud: ReadinessServer;
  firstbootRuns(): Promise<number>;
  /** The connection options of every module for this node. */
  connection: { installer: string; fingerprint: string; code: string; node: string };
}

interface Run {
  exit: number | null;
  output: string;
  /** The module's result as the ad-hoc command printed it (`localhost | STATE => {...}`). */
  result: any;
}

/** Appends to ./runs and prints its argument's first line; FIRSTBOOT_GATE waits for ./go first. */
const FIRSTBOOT_OK = `#!/bin/sh\necho run >> "$(dirname "$0")/runs"\necho "firstboot: founding from $1"\n`;
const FIRSTBOOT_GATE = `#!/bin/sh\necho run >> "$(dirname "$0")/runs"\nwhile [ ! -e "$(dirname "$0")/go" ]; do sleep 0.1; done\n`;
const FIRSTBOOT_FAILS = `#!/bin/sh\necho run >> "$(dirname "$0")/runs"\nprintf 'disk /dev/sdb is busy \\033[2J\\n' >&2\nexit 3\n`;

describe("Ansible: the stratum.installer modules against real installers (issue 26)", { skip: missing && "ansible is not installed (test/setup/ensure-ansible.sh installs Debian's ansible-core when run as root)" }, () => {
  let dir: string;

  async function startNode(name: string, firstboot = FIRSTBOOT_OK, readinessTimeout = "10"): Promise<Node> {
    const folder = await tempDir(`stratum-ansible-mod-${name}-`);
    const nodeYaml = join(folder, "etc/stratum/node.yaml");
    const cloud = await startReadinessServer({ port: 0, scenario: "ready", foundedWith: nodeYaml });
    lab.defer(() => cloud.close());
    const script = await writeFirstboot(folder, firstboot);
    const installer = await lab.start({
      stateDir: join(folder, "state"),
      args: ["--firstboot", script, "--node-yaml", nodeYaml, "--readiness-url", cloud.url, "--readiness-timeout", readinessTimeout, "--readiness-interval", "0.1"],
    });
    await untilNoBlockers(installer);
    const firstbootRuns = async () => (await readFile(join(folder, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
    const connection = { installer: `https://127.0.0.1:${installer.port}`, fingerprint: installer.fingerprint, code: installer.code, node: name };
    return { installer, folder, cloud, firstbootRuns, connection };
  }

  const env = () => ({
    ...process.env,
    LC_ALL: "C.UTF-8",
    ANSIBLE_COLLECTIONS_PATH: join(ROOT, "ansible/collections"),
    ANSIBLE_CONFIG: join(dir, "ansible.cfg"),
    ANSIBLE_HOME: join(dir, "ansible-home"),
    ANSIBLE_LOCAL_TEMP: join(dir, "ansible-tmp"),
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_STDOUT_CALLBACK: "default",
  });

  async function spawnAnsible(command: string, args: string[], cwd = dir): Promise<{ exit: number | null; stdout: string; output: string }> {
    const proc = spawn(command, args, { cwd, env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let output = "";
    proc.stdout.on("data", (d) => ((stdout += d), (output += d)));
    proc.stderr.on("data", (d) => (output += d));
    const exit = await new Promise<number | null>((resolve) => proc.on("close", resolve));
    assert.ok(!output.includes("FAILED - RETRYING"), output);
    assert.ok(!/DEPRECATION/.test(output), output);
    return { exit, stdout, output };
  }

  /** `ansible localhost -m stratum.installer.MODULE -a JSON FLAGS…`, its result parsed. */
  async function module(name: string, args: object, ...flags: string[]): Promise<Run> {
    const { exit, stdout, output } = await spawnAnsible("ansible", ["localhost", "-m", `stratum.installer.${name}`, "-a", JSON.stringify(args), ...flags]);
    const head = /^localhost \| [A-Z!]+ => /m.exec(stdout);
    assert.ok(head, output);
    const body = stdout.slice(head.index + head[0].length);
    return { exit, output, result: JSON.parse(body.slice(0, body.lastIndexOf("}") + 1)) };
  }

  const config = async (n: Node) => {
    const reply = await n.installer.request("/v1/installer/config");
    return { etag: reply.headers.etag, updatedAt: reply.json.updatedAt, config: reply.json.config };
  };
  const status = async (n: Node) => (await n.installer.request("/v1/installer/status")).json;

  before(async () => {
    dir = await tempDir("stratum-ansible-mod-");
    await writeFile(join(dir, "ansible.cfg"), "");
  });

  test("ansible-doc renders every module: its options (the connection's with them), examples and return values", async () => {
    for (const name of ["node_info", "join_token", "draft", "install", "support_bundle"]) {
      const doc = await spawnAnsible("ansible-doc", [`stratum.installer.${name}`]);
      assert.equal(doc.exit, 0, doc.output);
      for (const part of [`> STRATUM.INSTALLER.${name.toUpperCase()}`, "OPTIONS (= is mandatory):", "= fingerprint", "= code", "EXAMPLES:", "RETURN VALUES:"]) assert.ok(doc.output.includes(part), `${name}: ${part}\n${doc.output}`);
    }
  });

  test("draft: changed on the first put, unchanged on the same draft again; --check --diff shows the change with secrets redacted and writes nothing", async () => {
    const n = await startNode("node-d1");
    const passwordHash = "$6$rounds=4096$saltsalt$PASSWORDHASHSECRETVALUE";
    const joinToken = "STRATUM1:JOINTOKENSECRETVALUE";
    const draft = { ...VALID_DRAFT, hostname: "node-d1", admin: { ...VALID_DRAFT.admin, passwordHash } };
    const args = { ...n.connection, draft, join_token: joinToken };
    const fresh = await config(n);

    const checked = await module("draft", args, "--check", "--diff");
    assert.equal(checked.exit, 0, checked.output);
    assert.equal(checked.result.changed, true);
    assert.match(checked.output, /--- before: node-d1: the stored draft\n\+\+\+ after: the inventory's draft/);
    assert.match(checked.output, /^\+ {4}"passwordHash": "\[redacted, changed\]"/m);
    assert.match(checked.output, /^\+ {2}"hostname": "node-d1",/m);
    for (const secret of [passwordHash, joinToken, n.installer.code]) assert.ok(!checked.output.includes(secret), `${secret} in the output`);
    assert.deepEqual(await config(n), fresh, "check mode wrote nothing");

    const first = await module("draft", args);
    assert.equal(first.exit, 0, first.output);
    assert.equal(first.result.changed, true);
    const written = await config(n);
    assert.deepEqual(written.config, { ...draft, cluster: { joinToken } });
    assert.equal(first.result.etag, written.etag);
    assert.deepEqual(first.result.draft.cluster, { joinToken: "[redacted]" });

    const again = await module("draft", args, "--diff");
    assert.equal(again.exit, 0, again.output);
    assert.deepEqual([again.result.changed, again.result.differs], [false, []]);
    assert.deepEqual(await config(n), written, "the same draft is not written again");
    assert.ok(!again.output.includes("--- before"), again.output);
    for (const run of [first, again]) for (const secret of [passwordHash, joinToken]) assert.ok(!run.output.includes(secret));
  });

  test("node_info's validate and draft's draft at -vvv: their password hash and join token are in no output, the invocation's module_args masking them alone; both modules still work", async () => {
    const n = await startNode("node-v1");
    const passwordHash = "$6$rounds=4096$saltsalt$VVVPASSWORDHASHSECRET";
    const joinToken = "STRATUM1:VVVJOINTOKENSECRET";
    const draft = { ...VALID_DRAFT, hostname: "node-v1", admin: { ...VALID_DRAFT.admin, passwordHash } };
    const masked = "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER";

    const info = await module("node_info", { ...n.connection, validate: { ...draft, cluster: { joinToken } } }, "-vvv");
    assert.equal(info.exit, 0, info.output);
    assert.equal(info.result.status.phase, "configuring");
    assert.equal(typeof info.result.validation.valid, "boolean");
    const validate = info.result.invocation.module_args.validate;
    assert.deepEqual([validate.hostname, validate.admin.passwordHash, validate.cluster.joinToken], ["node-v1", masked, masked]);

    const put = await module("draft", { ...n.connection, draft: { ...draft, cluster: { joinToken } } }, "-vvv");
    assert.equal(put.exit, 0, put.output);
    assert.equal(put.result.changed, true);
    assert.deepEqual((await config(n)).config, { ...draft, cluster: { joinToken } }, "the node got the secrets");
    assert.deepEqual([put.result.invocation.module_args.draft.admin.passwordHash, put.result.invocation.module_args.draft.cluster.joinToken], [masked, masked]);

    const refused = await module("node_info", { ...n.connection, validate: draft, payload_wait: "soon" }, "-vvv");
    assert.equal(refused.exit, 2, refused.output);
    assert.match(refused.result.msg, /payload_wait/);
    assert.equal(refused.result.invocation.module_args.validate.admin.passwordHash, masked, "the argument check's failure masks it too");

    for (const run of [info, put, refused]) for (const secret of [passwordHash, joinToken, n.installer.code]) assert.ok(!run.output.includes(secret), `${secret} in the -vvv output`);
  });

  test("a wrong fingerprint fails before a byte is sent: a TLS server of the test's own hears nothing, a real node's draft stays as it was", async () => {
    const n = await startNode("node-f1");
    const tls = generateSelfSignedCert({ commonName: "impostor", dnsNames: ["impostor"], ipAddresses: ["127.0.0.1"] });
    let connections = 0;
    let bytes = 0;
    const impostor = createTlsServer({ cert: tls.certPem, key: tls.keyPem }, (socket) => {
      connections += 1;
      socket.on("data", (d: Buffer) => (bytes += d.length));
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
    lab.defer(() => new Promise((resolve) => impostor.close(resolve)));
    const port = (impostor.address() as { port: number }).port;

    const run = await module("node_info", { ...n.connection, installer: `https://127.0.0.1:${port}` });
    assert.equal(run.exit, 2, run.output);
    assert.match(run.result.msg, /^node-f1: the installer at https:\/\/127\.0\.0\.1:\d+ presented a certificate whose SHA-256 is [0-9A-F:]{95}, not the inventory's fingerprint [0-9A-F:]{95}; nothing was sent/);
    assert.equal(connections, 1, "it did connect and shake hands");
    assert.equal(bytes, 0, "and wrote no byte of a request");

    const other = await startNode("node-f2");
    const before = await config(other);
    const wrong = await module("draft", { ...other.connection, fingerprint: n.installer.fingerprint, draft: VALID_DRAFT });
    assert.equal(wrong.exit, 2, wrong.output);
    assert.match(wrong.result.msg, /presented a certificate whose SHA-256 is .*nothing was sent/);
    assert.deepEqual(await config(other), before);
    assert.ok(!wrong.output.includes(other.installer.code));
  });

  test("node_info: the status, the release, no verdict yet, and the node's validation of a draft; changes nothing", async () => {
    const n = await startNode("node-i1");
    const before = await config(n);
    const run = await module("node_info", { ...n.connection, validate: { ...VALID_DRAFT, network: { ...VALID_DRAFT.network, address: "10.20.0.300/24" } } });
    assert.equal(run.exit, 0, run.output);
    const { changed, status: s, release, verdict, validation } = run.result;
    assert.deepEqual({ changed, phase: s.phase, attempt: s.attempt, release, verdict }, { changed: false, phase: "configuring", attempt: 0, release: "2026.11.0", verdict: null });
    assert.equal(validation.valid, false);
    assert.deepEqual(validation.errors.map((e: { field: string }) => e.field), ["network.address"]);
    assert.deepEqual(await config(n), before);
  });

  test("install: installs and reports the verdict and its steps; a second call is ok and unchanged; check mode starts nothing", async () => {
    const n = await startNode("node-s1");
    assert.equal((await module("draft", { ...n.connection, draft: VALID_DRAFT })).exit, 0);

    const checked = await module("install", n.connection, "--check");
    assert.equal(checked.exit, 0, checked.output);
    assert.deepEqual([checked.result.changed, checked.result.msg], [true, "check mode: it would install; nothing was started"]);
    assert.equal((await status(n)).attempt, 0);

    const run = await module("install", n.connection);
    assert.equal(run.exit, 0, run.output);
    assert.equal(run.result.changed, true);
    assert.deepEqual(run.result.steps, ["preflight", "write-config", "firstboot", "readiness"]);
    assert.deepEqual([run.result.attempt, run.result.verdict.outcome, run.result.verdict.next], [1, "succeeded", "none"]);

    const again = await module("install", n.connection);
    assert.equal(again.exit, 0, again.output);
    assert.deepEqual([again.result.changed, again.result.msg, again.result.verdict.outcome], [false, "installed already (attempt 1)", "succeeded"]);
    assert.equal(await n.firstbootRuns(), 1);

    const info = await module("node_info", n.connection);
    assert.deepEqual([info.result.status.phase, info.result.verdict.attempt, info.result.verdict.outcome], ["done", 1, "succeeded"]);
    const drafted = await module("draft", { ...n.connection, draft: { ...VALID_DRAFT, hostname: "node-other" } });
    assert.equal(drafted.exit, 0, drafted.output);
    assert.deepEqual([drafted.result.changed, drafted.result.msg], [false, "installed already (attempt 1): an installed node keeps its config, its draft is not written; the inventory's draft differs at hostname: not applied"]);
  });

  test("install: a failing firstboot fails the task with its code, step and detail, the node's control characters written out", async () => {
    const n = await startNode("node-x1", FIRSTBOOT_FAILS);
    await module("draft", { ...n.connection, draft: VALID_DRAFT });
    const run = await module("install", n.connection);
    assert.equal(run.exit, 2, run.output);
    assert.match(run.result.msg, /^node-x1: the install failed: FIRSTBOOT_FAILED at firstboot: firstboot exited .*disk \/dev\/sdb is busy \\x1b\[2J.* \(next: retryInstall\)$/);
    assert.ok(!run.output.includes("\x1b"), "no escape reaches the terminal");
    assert.deepEqual([run.result.attempt, run.result.verdict.code], [1, "FIRSTBOOT_FAILED"]);
  });

  test("install: a node whose status says it is installed while its verdict says its attempt failed fails the task (its answers disagree); one whose verdict agrees is ok", async (t) => {
    const verdict = { attempt: 1, kind: "install", outcome: "failed", step: "firstboot", code: "FIRSTBOOT_FAILED", message: "firstboot exited with 1", next: "retryInstall" };
    const node = await fakeInstaller(t, (req, res) => {
      const body = req.url === "/v1/installer/status" ? { phase: "done", attempt: 1 } : req.url === "/v1/installer/install/verdict" ? verdict : undefined;
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { code: "NOT_FOUND" }));
    });
    const connection = { installer: node.url.origin, fingerprint: node.pin, code: "K7QX-M2PD-R4T1", node: "liar" };
    const run = await module("install", connection);
    assert.equal(run.exit, 2, run.output);
    assert.equal(run.result.msg, "liar: its answers disagree: its status says it is installed (phase done), its verdict says attempt 1 failed (FIRSTBOOT_FAILED: firstboot exited with 1); an installer's answers agree: look at the node");
    assert.equal(run.result.changed, false);
    Object.assign(verdict, { outcome: "succeeded", code: null, message: "installed", next: "none" });
    const agreeing = await module("install", connection);
    assert.equal(agreeing.exit, 0, agreeing.output);
    assert.equal(agreeing.result.msg, "installed already (attempt 1)");
  });

  test("install: a node listing thousands of failed checks fails the task with fifty of them, saying how many more, not megabytes of text", async (t) => {
    const checks = Array.from({ length: 3000 }, (_, i) => ({ name: `c${i}`, code: `CHECK_${i}`, detail: "x".repeat(1500) }));
    const verdict = { attempt: 1, kind: "install", outcome: "failed", step: "join-check", code: "JOIN_CHECK_FAILED", message: "m", next: "retryInstall", checks };
    const node = await fakeInstaller(t, (req, res) => {
      if (req.url?.startsWith("/v1/installer/install/events")) {
        return void res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: 1\ndata: ${JSON.stringify({ seq: 1, attempt: 1, type: "attempt.finished", message: "done" })}\n\n`);
      }
      const body =
        req.url === "/v1/installer/status" ? { phase: "configuring", attempt: 0 }
        : req.url === "/v1/installer/cluster/join-check" ? { ok: false, checks }
        : req.url === "/v1/installer/install" ? { attempt: 1 }
        : req.url?.startsWith("/v1/installer/install/verdict") ? verdict
        : undefined;
      res.writeHead(body ? (req.url === "/v1/installer/install" ? 202 : 200) : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { code: "NOT_FOUND" }));
    });
    const connection = { installer: node.url.origin, fingerprint: node.pin, code: "K7QX-M2PD-R4T1", node: "many" };
    const checked = await module("install", { ...connection, join_check: true });
    assert.equal(checked.exit, 2, checked.output.slice(0, 2000));
    assert.ok(checked.result.msg.length < 64 * 1024, `${checked.result.msg.length} characters`);
    assert.match(checked.result.msg, /^many: the join check failed: CHECK_0: x+… \(988 more characters\); .*; CHECK_49: x+… \(988 more characters\); and 2950 more checks the node listed$/);
    const failed = await module("install", connection);
    assert.equal(failed.exit, 2, failed.output.slice(0, 2000));
    assert.ok(failed.result.msg.length < 64 * 1024, `${failed.result.msg.length} characters`);
    assert.match(failed.result.msg, /^many: the install failed: JOIN_CHECK_FAILED at join-check: m \(next: retryInstall\); join check c0: CHECK_0: x+… \(988 more characters\); .*; join check c49: .*; and 2950 more checks the node listed$/);
  });

  test("draft: the stored draft and ETag a node returns are shown with their control characters written out (C1, bidi), never raw", async (t) => {
    const stored = { mode: "single-node", hostname: "n\u009b2J\u202eevil" };
    const node = await fakeInstaller(t, (req, res) => {
      if (req.url === "/v1/installer/status") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ phase: "done", attempt: 1 }));
      if (req.url === "/v1/installer/config") return void res.writeHead(200, { "content-type": "application/json", etag: '"e\u00851"' }).end(JSON.stringify({ source: "structured", config: stored, valid: true, errors: [], updatedAt: null }));
      res.writeHead(404).end();
    });
    const run = await module("draft", { installer: node.url.origin, fingerprint: node.pin, code: "K7QX-M2PD-R4T1", node: "odd", draft: stored });
    assert.equal(run.exit, 0, run.output);
    assert.equal(run.result.draft.hostname, "n\\x9b2J\\u202eevil");
    assert.equal(run.result.etag, '"e\\x851"');
    assert.ok(!/[\u0085\u009b\u202e]/.test(run.output), run.output);
  });

  test("install: a node that stops answering mid-attempt is said to be so when the wait ends (since when, and the last error), not that the attempt still runs", async (t) => {
    let statuses = 0;
    const node = await fakeInstaller(t, (req, res) => {
      if (req.url === "/v1/installer/status" && ++statuses === 1) {
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ phase: "installing", attempt: 1, step: "firstboot" }));
      }
      req.socket.destroy();
    });
    const run = await module("install", { installer: node.url.origin, fingerprint: node.pin, code: "K7QX-M2PD-R4T1", node: "gone", wait_timeout: 2 });
    assert.equal(run.exit, 2, run.output);
    assert.match(run.result.msg, /^gone: no verdict within 2 s: the node has not answered since \d\d:\d\d:\d\d UTC \(.+\); attempt 1 may still run there: look at the node's installer \(systemctl status stratum-installer\), then run the task again to follow it$/);
  });

  test("install: a short wait fails with a clear message, the install going on; the next call follows that attempt to its verdict", async () => {
    const n = await startNode("node-t1", FIRSTBOOT_GATE);
    await module("draft", { ...n.connection, draft: VALID_DRAFT });
    const run = await module("install", { ...n.connection, wait_timeout: 2 });
    assert.equal(run.exit, 2, run.output);
    assert.match(run.result.msg, /^node-t1: no verdict within 2 s: attempt 1 still runs, at step (preflight|write-config|firstboot); it goes on on the node: run the task again to follow it$/);
    assert.equal((await status(n)).phase, "installing");

    const checked = await module("install", n.connection, "--check");
    assert.deepEqual([checked.result.changed, checked.result.msg], [true, "check mode: it would follow attempt 1; nothing was started"]);

    // Through a TCP relay of the test's own: firstboot is let go once the module opened its second connection
    // (the events stream, after its status read), so that it finds the attempt running.
    let opened = 0;
    const relay = createNetServer((socket) => {
      if (++opened === 2) void writeFile(join(n.folder, "go"), "");
      const upstream = connectTcp(n.installer.port, "127.0.0.1");
      for (const s of [socket, upstream]) s.on("error", () => (socket.destroy(), upstream.destroy()));
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    lab.defer(() => new Promise((resolve) => relay.close(resolve)));
    const relayed = `https://127.0.0.1:${(relay.address() as { port: number }).port}`;
    const followed = await module("install", { ...n.connection, installer: relayed });
    assert.equal(followed.exit, 0, followed.output);
    assert.deepEqual([followed.result.changed, followed.result.attempt, followed.result.verdict.outcome], [true, 1, "succeeded"]);
    assert.deepEqual(followed.result.steps, ["preflight", "write-config", "firstboot", "readiness"], "the events are replayed from the start");
    assert.equal(await n.firstbootRuns(), 1, "one attempt, followed twice");
  });

  test("draft: a node whose attempt runs keeps its draft: a differing draft fails naming the attempt and the fields, in check mode as in the real run; the same draft is ok", async () => {
    const n = await startNode("node-t2", FIRSTBOOT_GATE);
    await module("draft", { ...n.connection, draft: VALID_DRAFT });
    assert.equal((await module("install", { ...n.connection, wait_timeout: 1 })).exit, 2);
    assert.equal((await status(n)).phase, "installing");
    const before = await config(n);
    const other = { ...VALID_DRAFT, timezone: "UTC" };
    const said = /^node-t2: attempt 1 runs on it, so its draft cannot change until the attempt ends; the inventory's draft differs at timezone: run again once it ended \(stratum\.installer\.install follows it to its verdict\)$/;
    for (const flags of [["--check"], []]) {
      const run = await module("draft", { ...n.connection, draft: other }, ...flags);
      assert.equal(run.exit, 2, run.output);
      assert.match(run.result.msg, said);
      assert.equal(run.result.changed, false);
    }
    const same = await module("draft", { ...n.connection, draft: VALID_DRAFT });
    assert.deepEqual([same.exit, same.result.changed], [0, false], same.output);
    assert.deepEqual(await config(n), before);
    await writeFile(join(n.folder, "go"), "");
  });

  test("install: a wait, request timeout or rechecks below what it counts fails before a request is sent (a wait of 0 started an install and gave up at once)", async (t) => {
    const node = await fakeInstaller(t, (req, res) => {
      const body = req.url === "/v1/installer/status" ? { phase: "configuring", attempt: 0 } : req.url === "/v1/installer/install" ? { attempt: 1 } : undefined;
      res.writeHead(body ? (req.url === "/v1/installer/install" ? 202 : 200) : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { code: "NOT_FOUND" }));
    });
    const connection = { installer: node.url.origin, fingerprint: node.pin, code: "K7QX-M2PD-R4T1", node: "odd" };
    const cases: Array<[object, RegExp]> = [
      [{ timeout_minutes: 0 }, /^odd: timeout_minutes is 0: give 1 or more \(minutes the task waits for the verdict\); nothing was sent$/],
      [{ timeout_minutes: -5 }, /^odd: timeout_minutes is -5: give 1 or more/],
      [{ wait_timeout: 0 }, /^odd: wait_timeout is 0: give 1 or more \(seconds the task waits for the verdict\); nothing was sent$/],
      [{ rechecks: -1 }, /^odd: rechecks is -1: give 0 or more \(readiness rechecks\); nothing was sent$/],
      [{ timeout: 0 }, /^odd: timeout is 0: give 1 or more \(seconds a request to the installer may take\); nothing was sent$/],
    ];
    for (const [args, said] of cases) {
      const run = await module("install", { ...connection, ...args });
      assert.equal(run.exit, 2, run.output);
      assert.match(run.result.msg, said);
    }
    assert.deepEqual(node.seen, []);
  });

  test("support_bundle: max_bytes below 1 fails before a request is sent (the node built a bundle and the task said it was over -5 bytes)", async (t) => {
    const node = await fakeInstaller(t, (_req, res) => {
      res.writeHead(200, { "content-type": "application/gzip" }).end("not a bundle");
    });
    const dest = join(await tempDir("stratum-ansible-mod-bundle-"), "b.tar.gz");
    for (const value of [0, -5]) {
      const run = await module("support_bundle", { installer: node.url.origin, fingerprint: node.pin, code: "K7QX-M2PD-R4T1", node: "odd", dest, max_bytes: value });
      assert.equal(run.exit, 2, run.output);
      assert.equal(run.result.msg, `odd: max_bytes is ${value}: give 1 or more (bytes the bundle may hold); nothing was sent`);
    }
    assert.deepEqual(node.seen, []);
  });

  test("install: a node that failed at readiness is rechecked, never installed again; rechecks sets how often the task rechecks by itself", async () => {
    const n = await startNode("node-r1", FIRSTBOOT_OK, "2");
    n.cloud.setScenario("never");
    await module("draft", { ...n.connection, draft: VALID_DRAFT });
    const failed = await module("install", { ...n.connection, rechecks: 0 });
    assert.equal(failed.exit, 2, failed.output);
    assert.match(failed.result.msg, /^node-r1: the install failed: READINESS_TIMEOUT at readiness: .* \(next: recheckReadiness\)$/);

    n.cloud.setScenario("ready");
    const rechecked = await module("install", n.connection);
    assert.equal(rechecked.exit, 0, rechecked.output);
    assert.deepEqual([rechecked.result.attempt, rechecked.result.verdict.kind, rechecked.result.verdict.outcome, rechecked.result.steps], [2, "recheck-readiness", "succeeded", ["readiness"]]);
    assert.equal(await n.firstbootRuns(), 1, "a recheck never runs firstboot again");

    const m = await startNode("node-r2", FIRSTBOOT_OK, "4");
    m.cloud.setScenario("never");
    await module("draft", { ...m.connection, draft: VALID_DRAFT });
    // The cloud gets READY once the first attempt timed out, as a slow Ceph bootstrap would.
    let ran = false;
    const flipped = waitFor("node-r2's first verdict", async () => {
      if (ran) return false;
      if ((await m.installer.request("/v1/installer/install/verdict?attempt=1")).status !== 200) return undefined;
      m.cloud.setScenario("ready");
      return true;
    }, 120_000);
    const run = await module("install", m.connection);
    ran = true;
    assert.equal(run.exit, 0, run.output);
    assert.equal(await flipped, true);
    assert.deepEqual([run.result.attempt, run.result.verdict.kind, run.result.verdict.outcome], [2, "recheck-readiness", "succeeded"]);
  });

  test("install with join_check: a check that fails fails the task with its code, starting nothing", async () => {
    const n = await startNode("node-j1");
    const gone = await refusingServer();
    lab.defer(() => gone.close());
    const join = { ...INIT_DRAFT, mode: "hyperconverged-join", hostname: "node-j1", cluster: { name: "rack-a", joinAddress: `127.0.0.1:${gone.port}` } };
    const token = `STRATUM1:${"ab".repeat(32)}:c2VjcmV0LXNlY3JldC1zZWNyZXQ`;
    await module("draft", { ...n.connection, draft: join, join_token: token });
    const run = await module("install", { ...n.connection, join_check: true });
    assert.equal(run.exit, 2, run.output);
    assert.match(run.result.msg, /^node-j1: the join check failed: JOIN_UNREACHABLE: /);
    assert.equal((await status(n)).attempt, 0);
    assert.ok(!run.output.includes(token));
  });

  test("join_token: fails with the API's code and a next step before the init is installed; once it is, the token is registered but never shown, even with -v", async () => {
    const n = await startNode("node-init");
    await module("draft", { ...n.connection, draft: { ...INIT_DRAFT, hostname: "node-init" } });
    const early = await module("join_token", n.connection);
    assert.equal(early.exit, 2, early.output);
    assert.match(early.result.msg, /^node-init: the init node gives no join token yet \(NOT_INSTALLED\): install it first/);

    assert.equal((await module("install", n.connection)).exit, 0);
    const token = (await n.installer.request("/v1/installer/cluster/join-token")).json.token as string;
    const shown = await module("join_token", n.connection, "-v");
    assert.equal(shown.exit, 0, shown.output);
    assert.ok(!shown.output.includes(token), "the token is in the -v output");
    assert.match(shown.output, /censored/);

    await writeFile(join(dir, "token.yml"), `- hosts: localhost\n  gather_facts: false\n  tasks:\n    - stratum.installer.join_token: ${JSON.stringify(n.connection)}\n      register: t\n    - ansible.builtin.assert:\n        that: t.token == "${token}" and t.joinAddress == "10.20.0.10" and t.cluster == "rack-a"\n        quiet: true\n`);
    const registered = await spawnAnsible("ansible-playbook", [join(dir, "token.yml"), "-v"]);
    assert.equal(registered.exit, 0, registered.output);
    assert.ok(!registered.output.replace(join(dir, "token.yml"), "").includes(token.split(":")[2]!), "the secret in the playbook's output");
  });

  test("support_bundle: the node's bundle written 0600 and replaced whole; check mode writes nothing; over max_bytes nothing is left", async () => {
    const n = await startNode("node-b1");
    const folder = await tempDir("stratum-ansible-mod-bundle-");
    const dest = join(folder, "node-b1.tar.gz");

    const checked = await module("support_bundle", { ...n.connection, dest }, "--check");
    assert.equal(checked.exit, 0, checked.output);
    assert.equal(checked.result.changed, true);
    assert.deepEqual(await readdir(folder), []);

    for (const _ of [1, 2]) {
      const run = await module("support_bundle", { ...n.connection, dest });
      assert.equal(run.exit, 0, run.output);
      assert.equal(run.result.changed, true);
      assert.equal((await stat(dest)).mode & 0o777, 0o600);
      assert.equal(run.result.bytes, (await stat(dest)).size);
    }
    assert.deepEqual(await readdir(folder), ["node-b1.tar.gz"]);
    assert.equal(JSON.parse((await extractBundle(dest)).files.get("manifest.json")!).bundle, "stratum-support");

    const capped = join(folder, "capped.tar.gz");
    const over = await module("support_bundle", { ...n.connection, dest: capped, max_bytes: 1000 });
    assert.equal(over.exit, 2, over.output);
    assert.match(over.result.msg, /^node-b1: the bundle is over max_bytes \(1000 bytes\); nothing was saved$/);
    assert.deepEqual(await readdir(folder), ["node-b1.tar.gz"], "no partial file left");
  });
});
