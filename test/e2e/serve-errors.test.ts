import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { once } from "node:events";
import { join } from "node:path";
import { test } from "node:test";
import { stateLayout } from "../../core/state/layout.ts";
import { harness, runCli, tempDir, waitFor } from "../helpers/installer.ts";

const lab = harness();

/** `serve` with these flags exits by itself, non-zero, with one line on stderr (beside the service log's JSON lines) and no stack trace; returns that line. */
async function refused(args: string[], options: { stateDir?: string; uid?: number; exit?: number } = {}): Promise<string> {
  const spawned = await lab.spawn({ stateDir: options.stateDir, args, ...(options.uid === undefined ? {} : { uid: options.uid }) });
  const code = await spawned.exited;
  const { stdout, stderr } = spawned.output();
  assert.equal(code, options.exit ?? 1, `exit ${code}\nstdout: ${stdout}\nstderr: ${stderr}`);
  const said = stderr.split("\n").filter((line) => line && !line.startsWith('{"time":'));
  assert.equal(said.length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |node:internal/);
  return said[0]!;
}

/** A loopback port another program (a server of the test's own) holds until the test ends. */
async function heldPort(): Promise<number> {
  const holder = createServer();
  holder.listen(0, "127.0.0.1");
  await once(holder, "listening");
  lab.defer(() => holder.close());
  return (holder.address() as { port: number }).port;
}

test("a port another program holds: one line naming it and what to do", async () => {
  const port = await heldPort();
  assert.equal(
    await refused(["--listen", `127.0.0.1:${port}`]),
    `installer: cannot listen on 127.0.0.1:${port}: another program uses that port (EADDRINUSE); stop it, or choose another port with --listen 127.0.0.1:PORT`,
  );
});

test("a port another program holds, given as STRATUM_LISTEN (installer.env, npm start's demo): what to do names the variable, not a --listen that cannot be typed there", async () => {
  const port = await heldPort();
  const stateDir = await tempDir();
  const { code, stderr } = await runCli(["serve", "--state-dir", stateDir, "--handoff", join(stateDir, "no-handoff/node.yaml")], { STRATUM_LISTEN: `127.0.0.1:${port}` });
  assert.equal(code, 1, stderr);
  const said = stderr.split("\n").filter((line) => line && !line.startsWith('{"time":'));
  assert.deepEqual(said, [
    `installer: cannot listen on 127.0.0.1:${port}: another program uses that port (EADDRINUSE); stop it, or choose another port with STRATUM_LISTEN=127.0.0.1:PORT (from the environment; under systemd /etc/stratum/installer.env)`,
  ]);
});

test("an address that is not this machine's: one line listing the ones it has", async () => {
  // TEST-NET-1 (RFC 5737): never assigned to a machine; bind fails at once, nothing is sent.
  assert.match(
    await refused(["--listen", "192.0.2.1:0"]),
    /^installer: cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address of this machine \(EADDRNOTAVAIL\); --listen on one of .*127\.0\.0\.1.*, or 0\.0\.0\.0 for all$/,
  );
});

test("a --listen host name that does not resolve (a typo): one line saying so and listing the addresses it has, not getaddrinfo's words", async () => {
  // .invalid (RFC 6761) never resolves.
  assert.match(
    await refused(["--listen", "node-01.invalid:0"]),
    /^installer: cannot listen on node-01\.invalid:0: node-01\.invalid does not resolve to an address here \((ENOTFOUND|EAI_AGAIN)\); --listen on one of .*127\.0\.0\.1.*, or 0\.0\.0\.0 for all$/,
  );
});

test("a port below 1024 as a user who may not bind it: one line saying it needs root", { skip: process.getuid?.() !== 0 ? "needs root to run the installer as another user" : undefined }, async () => {
  const folder = await tempDir();
  const stateDir = join(folder, "state");
  await mkdir(stateDir);
  const nobody = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }));
  await chown(folder, nobody, nobody);
  await chown(stateDir, nobody, nobody);
  assert.equal(
    await refused(["--listen", "127.0.0.1:443"], { stateDir, uid: nobody }),
    "installer: cannot listen on 127.0.0.1:443: port 443 is below 1024 and needs root (EACCES); run the installer as root, or choose a port of 1024 or above with --listen",
  );
});

test("a state dir that cannot be made (in /proc, under a file, a file itself): one line at once, exit 2 (a restart changes nothing), where mkdir -p hung on /proc for good", async () => {
  const folder = await tempDir();
  await writeFile(join(folder, "file"), "");
  assert.equal(
    await refused([], { stateDir: join(folder, "file"), exit: 2 }),
    `installer: the state dir ${folder}/file cannot be made: ${folder}/file is a file, not a folder (EEXIST); choose another --state-dir`,
  );
  assert.equal(
    await refused([], { stateDir: "/proc/stratum-state", exit: 2 }),
    "installer: the state dir /proc/stratum-state cannot be made: /proc does not let folders be made in it (ENOENT); choose another --state-dir",
  );
  assert.equal(
    await refused([], { stateDir: join(folder, "file/state"), exit: 2 }),
    `installer: the state dir ${folder}/file/state cannot be made: ${folder}/file is a file, not a folder (ENOTDIR); choose another --state-dir`,
  );
});

test("a setting from the environment that is refused names its variable, not a flag never typed; a STRATUM_ variable no flag reads is warned of, with the one it is likely to be", async () => {
  const stateDir = await tempDir();
  const fromEnv = await runCli(["serve", "--state-dir", stateDir], { STRATUM_LISTEN: "[::]9443" });
  assert.equal(fromEnv.code, 2);
  assert.match(fromEnv.stderr, /^installer: STRATUM_LISTEN \(from the environment; under systemd \/etc\/stratum\/installer\.env\) must be host:port \(e\.g\. 0\.0\.0\.0:9443 or \[::\]:9443\), got "\[::\]9443"\n/);
  const typo = await runCli(["serve", "--state-dir", stateDir, "--listen", "nowhere"], { STRATUM_LSITEN: "127.0.0.1:0", STRATUM_WHATEVER: "1" });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /^installer: warning: STRATUM_LSITEN is set, but no flag reads it: did you mean STRATUM_LISTEN\?\n/);
  assert.match(typo.stderr, /installer: warning: STRATUM_WHATEVER is set, but no flag reads it: serve --help names each flag's variable\n/);
  assert.match(typo.stderr, /installer: --listen must be host:port/, "a flag typed is named as a flag");

  // Once it starts: a notice of the start, kept in last-start.json for a support bundle made later, and in the banner.
  // An empty one (installer.env's `STRATUM_TLS_CERT=`) is as if not there: the start goes on (a self-signed pair), saying so.
  const started = await lab.start({ stateDir, env: { STRATUM_LSITEN: "127.0.0.1:0", STRATUM_TLS_CERT: "", STRATUM_TLS_KEY: "" } });
  const warning = "STRATUM_LSITEN is set, but no flag reads it: did you mean STRATUM_LISTEN?";
  assert.match(started.banner, new RegExp(`NOTICE: ${warning.replace(/[?]/g, "\\$&")}`));
  assert.match(started.banner, /NOTICE: STRATUM_TLS_CERT is empty: taken as not set; give it a value, or remove the line/);
  assert.ok((JSON.parse(await readFile(stateLayout(stateDir).lastStart, "utf8")) as { notices: string[] }).notices.includes(warning));
  // Said once on stderr, as the log's warning: not also as a plain line before it.
  const stderr = await waitFor("the listening log line", async () => {
    const { stderr } = started.output();
    return stderr.includes('"message":"listening"') ? stderr : undefined;
  });
  assert.equal(stderr.split(warning).length - 1, 1, stderr);
  assert.doesNotMatch(stderr, /installer: warning:/);
});
