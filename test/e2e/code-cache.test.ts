import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { chmod, chown, copyFile, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, test } from "node:test";
import { MAIN_MARK as MARK } from "../../cli/fast-start.ts";
import { stateLayout } from "../../core/state/layout.ts";
import { BUNDLE, ROOT, bundleNode, harness, logLines as serviceLogLines, runCli, tempDir, waitFor, type RunningInstaller, type StartOptions } from "../helpers/installer.ts";
import { ensureNode, NODE_RUNTIMES } from "../setup/node-runtimes.ts";
import { noTmpfs, tmpfsFor } from "../helpers/full-disk.ts";

const lab = harness();
const run = promisify(execFile);

interface LogLine {
  time: string;
  message: string;
  ms?: number;
  codeCache?: string;
  codeCacheFrom?: string;
  error?: string;
  startMs?: Record<string, number>;
}

const logLines = (installer: RunningInstaller): LogLine[] => serviceLogLines(installer) as LogLine[];

/** What the start did with the state dir's cache, from its `listening` log line. */
async function cacheState(installer: RunningInstaller): Promise<string | undefined> {
  const line = await waitFor("the listening log line", async () => logLines(installer).find((l) => l.message === "listening"));
  return line.codeCache;
}

/** The warm-up's log line: the installer ran its work of a quiet moment (1.5 s without a request, cli/warm-up.ts). */
function warmedUp(installer: RunningInstaller): Promise<LogLine> {
  return waitFor("the warm-up's log line", async () => logLines(installer).find((l) => l.message === "request paths warmed up"));
}

/**
 * Asks `path`, then waits until the cache's save after it had its chance: the save runs 1 s after the last request, the
 * warm-up 1.5 s after it (both timers armed by the request, cli/when-quiet.ts). False when the warm-up began before the
 * answer came (a machine slow from the banner on: the warm-up ran once, before the request), which then proves nothing.
 */
async function requestThenQuiet(installer: RunningInstaller, path: string): Promise<boolean> {
  assert.equal((await installer.request(path)).status, 200);
  const answeredAt = Date.now();
  const line = await warmedUp(installer);
  // Its start, from its end and length; 2 ms for the millisecond rounding of both clocks.
  return Date.parse(line.time) - line.ms! > answeredAt + 2;
}

/** Starts, checks what it did with the cache, serves one request and waits for the cache it writes after it; then stops. */
async function startAndServe(options: StartOptions & { stateDir: string }, before?: Buffer): Promise<{ state: string | undefined; written: Buffer }> {
  const installer = await lab.start(options);
  const state = await cacheState(installer);
  assert.equal((await installer.request("/healthz")).status, 200);
  const written = await waitFor("the code cache", async () => {
    const data = await readFile(stateLayout(options.stateDir).codeCache).catch(() => undefined);
    return data && !(before && data.equals(before)) ? data : undefined;
  });
  await installer.stop();
  return { state, written };
}

describe("the V8 code cache in the state dir", () => {
  test("written (0600) after the first request, not before; used by the next start", async () => {
    const stateDir = join(await tempDir(), "state");
    const first = await lab.start({ stateDir });
    assert.equal(await cacheState(first), "absent");
    // Its first quiet moment passed: a cache saved at the start, or at a quiet moment without a request, is there by now.
    await warmedUp(first);
    await assert.rejects(stat(stateLayout(stateDir).codeCache), { code: "ENOENT" }, "no cache before a request is served");
    assert.equal((await first.request("/v1/installer/status")).status, 200);
    const file = stateLayout(stateDir).codeCache;
    await waitFor("the code cache", async () => (await stat(file).catch(() => undefined))?.size || undefined);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(stateDir)).mode & 0o777, 0o700);
    await first.stop();
    const written = await readFile(file);
    const { ino } = await stat(file);

    for (let starts = 1; ; starts++) {
      const second = await lab.start({ stateDir });
      assert.equal(await cacheState(second), "used");
      const proved = await requestThenQuiet(second, "/v1/installer/status");
      await second.stop();
      assert.ok((await readFile(file)).equals(written) && (await stat(file)).ino === ino, "a cache that was used is not rewritten");
      if (proved) break;
      assert.ok(starts < 5, "5 starts in a row warmed up before their first request was answered: the cache's save after it was never seen to run");
    }
  });

  for (const [damage, spoil] of [
    ["truncated", (data: Buffer) => data.subarray(0, data.length >> 1)],
    ["corrupted in V8's data (same length)", (data: Buffer) => Buffer.concat([data.subarray(0, 4096), Buffer.alloc(data.length - 8192, 0x5a), data.subarray(-4096)])],
    ["garbage", () => Buffer.from("not a code cache\n")],
  ] as const) {
    test(`a ${damage} cache is rejected, the service starts, and the cache is rewritten`, async () => {
      const stateDir = join(await tempDir(), "state");
      const { written } = await startAndServe({ stateDir });
      const spoiled = spoil(written);
      await writeFile(stateLayout(stateDir).codeCache, spoiled);
      const again = await startAndServe({ stateDir }, spoiled);
      assert.equal(again.state, "rejected");
      assert.ok(again.written.equals(written) || again.written.length > 1000, "a whole cache again");
      const third = await lab.start({ stateDir });
      assert.equal(await cacheState(third), "used");
      await third.stop();
    });
  }

  test("another bundle's cache (one of the same length: V8 checks only the length) is rejected and rewritten", async () => {
    const folder = await tempDir();
    const stateDir = join(folder, "state");
    const made = await startAndServe({ stateDir });
    const bundle = await readFile(BUNDLE, "utf8");
    const at = bundle.lastIndexOf(MARK);
    const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    const other = join(folder, "installer.js");
    await writeFile(other, bundle.slice(0, at) + bundle.slice(at).replaceAll(`"${version}"`, `"${version.slice(0, -1)}x"`));
    await writeFile(join(folder, "package.json"), '{"type":"commonjs"}\n');
    const again = await startAndServe({ stateDir, bundle: other, cwd: folder }, made.written);
    assert.equal(again.state, "rejected");
  });

  test("the listening line says when each part of the start ended (ms since the process began), in order, first start and second", async () => {
    const stateDir = join(await tempDir(), "state");
    for (const expected of ["absent", "used"]) {
      const installer = await lab.start({ stateDir });
      const line = await waitFor("the listening log line", async () => logLines(installer).find((l) => l.message === "listening"));
      assert.equal(line.codeCache, expected);
      const marks = line.startMs!;
      assert.deepEqual(Object.keys(marks), ["compiled", "modulesLoaded", "stateReady", "listening"]);
      const values = Object.values(marks);
      assert.ok(values[0]! > 0 && values.every((v, i) => Number.isFinite(v) && (i === 0 || v >= values[i - 1]!)), JSON.stringify(marks));
      assert.equal((await installer.request("/v1/installer/status")).status, 200);
      await waitFor("the code cache", async () => (await stat(stateLayout(stateDir).codeCache).catch(() => undefined))?.size || undefined);
      await installer.stop();
    }
  });

  test("a cache made by another Node.js version is rejected and rewritten", async (t) => {
    const version = NODE_RUNTIMES.find((v) => `v${v}` !== process.version)!;
    const runtime = await ensureNode(version);
    if ("skip" in runtime) return t.skip(runtime.skip);
    const stateDir = join(await tempDir(), "state");
    const made = await startAndServe({ stateDir });
    const other = await startAndServe({ stateDir, node: runtime.node }, made.written);
    assert.equal(other.state, "rejected");
    const back = await lab.start({ stateDir });
    assert.equal(await cacheState(back), "rejected", "the other version's cache is not this one's");
    await back.stop();
  });

  test("a cache another user could have written (group/other-writable, or another owner) is not trusted: rejected, said, and rewritten", async () => {
    const stateDir = join(await tempDir(), "state");
    const { written } = await startAndServe({ stateDir });
    const file = stateLayout(stateDir).codeCache;
    await chmod(file, 0o666);
    const again = await lab.start({ stateDir });
    assert.equal(await cacheState(again), "rejected");
    assert.equal((await again.request("/healthz")).status, 200);
    await waitFor("the cache rewritten as this service's private file", async () => ((await stat(file)).mode & 0o777) === 0o600 || undefined);
    await again.stop();
    if (process.getuid?.() === 0) {
      await chown(file, 4242, 4242);
      const installer = await lab.start({ stateDir });
      assert.equal(await cacheState(installer), "rejected");
      const warning = await waitFor("the warning", async () => logLines(installer).find((l) => l.message === "code cache not read"));
      assert.match(warning.error!, /belongs to uid 4242/);
      await installer.stop();
    }
    assert.ok(written.length > 0);
  });

  test("a cache that can be neither read nor written (a folder in its place) is no error: the service starts and serves", async () => {
    const stateDir = join(await tempDir(), "state");
    await mkdir(stateLayout(stateDir).codeCache, { recursive: true, mode: 0o700 });
    const installer = await lab.start({ stateDir });
    assert.equal(await cacheState(installer), "absent");
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    const lines = await waitFor("the warnings", async () => {
      const found = logLines(installer).filter((l) => l.message.startsWith("code cache not"));
      return found.length === 2 ? found : undefined;
    });
    assert.deepEqual(
      lines.map((l) => l.message),
      ["code cache not read", "code cache not written"],
    );
    assert.match(lines[0]!.error!, /EISDIR/);
    assert.equal((await installer.request("/healthz")).status, 200, "still serving");
    await installer.stop();
    assert.deepEqual(await tempFiles(stateDir), [], "the failed write left its temp file");
  });

  test("stopped right after its first request, a fresh state dir holds no temp file of the cache (the write is done or never begun)", async () => {
    for (let i = 0; i < 5; i++) {
      const stateDir = join(await tempDir(), "state");
      const installer = await lab.start({ stateDir });
      assert.equal((await installer.request("/healthz")).status, 200);
      assert.equal(await installer.stop(), 0);
      assert.deepEqual(await tempFiles(stateDir), []);
    }
  });

  test("a state dir with little room left gets no cache: the store and the event logs need the space more", { skip: noTmpfs }, async (t) => {
    const mount = join(await tempDir(), "mnt");
    if (!(await tmpfsFor(t, mount, "4m"))) return;
    const stateDir = join(mount, "state");
    const installer = await lab.start({ stateDir });
    assert.equal((await installer.request("/healthz")).status, 200);
    const warning = await waitFor("the warning", async () => logLines(installer).find((l) => l.message === "code cache not written"));
    assert.match(warning.error!, /^only \d+(\.\d)? MiB free in the state dir; the cache needs \d+(\.\d)? MiB and leaves room for the store and the event logs$/);
    await installer.stop();
    assert.deepEqual((await readdir(stateDir)).filter((name) => name.includes("code-cache")), []);
  });
});

/** A copy of the bundle alone in a folder of its own (with the package.json that says CommonJS), as an image holds it. */
async function bundleCopy(): Promise<string> {
  const folder = await tempDir();
  const bundle = join(folder, "installer.js");
  await copyFile(BUNDLE, bundle);
  await writeFile(join(folder, "package.json"), '{"type":"commonjs"}\n');
  await chmod(folder, 0o755); // whatever the umask
  return bundle;
}

describe("a code cache beside the bundle, made for an image whose state dir starts empty at every boot", () => {
  test("`prepare-image` writes installer.js.code-cache; a start on a fresh state dir compiles from it and writes none of its own", async () => {
    const bundle = await bundleCopy();
    // A node.yaml left for an unattended install, where the service's environment says: never taken by this command.
    const handoff = join(await tempDir(), "node.yaml");
    await writeFile(handoff, "hostname: node-01\n");
    const made = await runCli(["prepare-image"], { STRATUM_HANDOFF: handoff }, ROOT, bundle);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(await readFile(handoff, "utf8"), "hostname: node-01\n");
    const file = `${bundle}.code-cache`;
    assert.match(made.stdout, new RegExp(`^wrote ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\(\\d+(\\.\\d)? MiB, Node v\\d+\\.\\d+\\.\\d+\\)`));
    assert.equal((await stat(file)).mode & 0o777, 0o644, "readable by the service, written by its owner alone");
    assert.deepEqual((await readdir(join(bundle, ".."))).sort(), ["installer.js", "installer.js.code-cache", "package.json"], "no temp file left");

    const stateDir = join(await tempDir(), "state");
    const installer = await lab.start({ stateDir, bundle });
    const line = await waitFor("the listening log line", async () => logLines(installer).find((l) => l.message === "listening"));
    assert.deepEqual([line.codeCache, line.codeCacheFrom], ["used", "bundle"]);
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    assert.equal(await installer.stop(), 0);
    await assert.rejects(stat(stateLayout(stateDir).codeCache), { code: "ENOENT" }, "the state dir needs no copy of the image's cache");
  });

  test("prepare-image run again for the same installer.js, Node and flags (an image build run twice) says the cache is current and exits 0 (its serve used that cache and wrote none: it waited 60 s, then failed)", async () => {
    const bundle = await bundleCopy();
    assert.equal((await runCli(["prepare-image"], {}, ROOT, bundle)).code, 0);
    const file = `${bundle}.code-cache`;
    const before = await readFile(file);
    const again = await runCli(["prepare-image"], {}, ROOT, bundle);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is current \\(Node v\\d+\\.\\d+\\.\\d+\\): a start whose state dir has no cache of its own compiles from it\\.\n`));
    assert.equal(again.stderr, "");
    assert.ok((await readFile(file)).equals(before), "left as it was");
    assert.deepEqual((await readdir(join(bundle, ".."))).sort(), ["installer.js", "installer.js.code-cache", "package.json"]);
  });

  test("prepare-image run again on a current cache the service's user cannot read (mode 0600: a copy, a umask) makes it readable again, saying so", async () => {
    const bundle = await bundleCopy();
    assert.equal((await runCli(["prepare-image"], {}, ROOT, bundle)).code, 0);
    const file = `${bundle}.code-cache`;
    await chmod(file, 0o600);
    const again = await runCli(["prepare-image"], {}, ROOT, bundle);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is current \\(Node v\\d+\\.\\d+\\.\\d+\\); made readable by every user \\(it was mode 600: a service run as another user could not read it\\): a start whose state dir`));
    assert.equal((await stat(file)).mode & 0o777, 0o644);
  });

  test("a bundle in a folder others can write gets no cache: one line says why, before any serve is started; run through a symlink, the cache goes beside the real file", async () => {
    const bundle = await bundleCopy();
    await chmod(join(bundle, ".."), 0o775);
    const refused = await runCli(["prepare-image"], {}, ROOT, bundle);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^installer: no code cache written: the bundle's folder is writable by others \(mode 775\): no start would trust a cache in it\n$/);
    assert.deepEqual((await readdir(join(bundle, ".."))).sort(), ["installer.js", "package.json"]);

    await chmod(join(bundle, ".."), 0o755);
    const links = await tempDir();
    await symlink(bundle, join(links, "installer.js"));
    const made = await runCli(["prepare-image"], {}, ROOT, join(links, "installer.js"));
    assert.equal(made.code, 0, made.stderr);
    assert.ok((await stat(`${bundle}.code-cache`)).size > 0);
    assert.deepEqual(await readdir(links), ["installer.js"]);
  });

  test("prepare-image stopped by SIGTERM stops its serve and leaves no temp dir", async () => {
    const bundle = await bundleCopy();
    const tmp = await tempDir();
    const proc = spawn(process.execPath, [bundle, "prepare-image"], { env: { ...process.env, TMPDIR: tmp }, stdio: "ignore" });
    const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
    // Its serve is up once its state dir holds the install code.
    const stateDir = await waitFor("its serve's state dir", async () => {
      const [work] = await readdir(tmp);
      const dir = work && join(tmp, work, "state");
      return dir && (await stat(join(dir, "install-code")).then(() => dir, () => undefined));
    });
    proc.kill("SIGTERM");
    assert.equal(await exited, 143);
    assert.deepEqual(await readdir(tmp), []);
    const serving = (await readdir("/proc")).filter((pid) => /^\d+$/.test(pid));
    const cmdlines = await Promise.all(serving.map((pid) => readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")));
    assert.deepEqual(cmdlines.filter((c) => c.includes(stateDir)), [], "its serve still runs");
  });

  test("prepare-image stopped from its terminal (Ctrl-C to it and its serve, or the terminal gone: SIGHUP) stops its serve, leaves no temp dir, and says only that it was stopped", async () => {
    const bundle = await bundleCopy();
    for (const [signal, exit] of [["SIGINT", 130], ["SIGHUP", 129]] as const) {
      const tmp = await tempDir();
      // Its own process group, as a shell's job: a terminal signals the whole group.
      const proc = spawn(process.execPath, [bundle, "prepare-image"], { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "ignore", "pipe"], detached: true });
      lab.defer(() => proc.exitCode === null && proc.kill("SIGKILL"));
      let stderr = "";
      proc.stderr!.on("data", (d) => (stderr += d));
      const closed = new Promise<number | null>((r) => proc.on("close", (code) => r(code)));
      const stateDir = await waitFor("its serve's state dir", async () => {
        const [work] = await readdir(tmp);
        const dir = work && join(tmp, work, "state");
        return dir && (await stat(join(dir, "install-code")).then(() => dir, () => undefined));
      });
      process.kill(-proc.pid!, signal);
      assert.equal(await closed, exit, `${signal}: ${stderr}`);
      assert.deepEqual(await readdir(tmp), [], signal);
      assert.equal(stderr, `installer: stopped (${signal}): no code cache written\n`);
      const serving = (await readdir("/proc")).filter((pid) => /^\d+$/.test(pid));
      const cmdlines = await Promise.all(serving.map((pid) => readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")));
      assert.deepEqual(cmdlines.filter((c) => c.includes(stateDir)), [], `${signal}: its serve still runs`);
    }
  });

  test("prepare-image beside a bundle on a read-only file system (an image already sealed): one line naming the cache file, why and what to do; no temp dir left", { skip: noTmpfs }, async (t) => {
    const mount = join(await tempDir(), "opt");
    if (!(await tmpfsFor(t, mount, "4m"))) return;
    await copyFile(BUNDLE, join(mount, "installer.js"));
    await writeFile(join(mount, "package.json"), '{"type":"commonjs"}\n');
    await run("mount", ["-o", "remount,ro", mount]);
    const tmp = await tempDir();
    const made = await runCli(["prepare-image"], { TMPDIR: tmp }, ROOT, join(mount, "installer.js"));
    assert.equal(made.code, 1, made.stderr);
    assert.equal(made.stderr, `installer: no code cache written: ${mount}/installer.js.code-cache cannot be written (EROFS: its file system is read-only): remount its file system read-write\n`);
    assert.deepEqual(await readdir(tmp), []);
  });

  test("a service running as another user than root uses the image's cache root wrote", { skip: process.getuid?.() !== 0 ? "needs root to run the installer as another user" : undefined }, async () => {
    const bundle = await bundleCopy();
    assert.equal((await runCli(["prepare-image"], {}, ROOT, bundle)).code, 0);
    await chmod(join(bundle, ".."), 0o755);
    const nobody = Number((await run("id", ["-u", "nobody"])).stdout.trim());
    const folder = await tempDir();
    const stateDir = join(folder, "state");
    await mkdir(stateDir, { mode: 0o700 });
    await chown(folder, nobody, nobody);
    await chown(stateDir, nobody, nobody);
    const installer = await lab.start({ stateDir, bundle, uid: nobody, payload: false });
    const line = await waitFor("the listening log line", async () => logLines(installer).find((l) => l.message === "listening"));
    assert.deepEqual([line.codeCache, line.codeCacheFrom], ["used", "bundle"]);
    await installer.stop();
  });

  test("a state dir that kept an older bundle's cache, started from an image's bundle: the image's cache is used and the outdated one removed after the first request", async () => {
    // The older bundle: this one with another version, its cache written into the state dir by a start of it.
    const older = await bundleCopy();
    const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    await writeFile(older, (await readFile(older, "utf8")).replaceAll(`"${version}"`, `"${version.slice(0, -1)}x"`));
    const stateDir = join(await tempDir(), "state");
    await startAndServe({ stateDir, bundle: older, cwd: join(older, "..") });
    const bundle = await bundleCopy();
    assert.equal((await runCli(["prepare-image"], {}, ROOT, bundle)).code, 0);

    const installer = await lab.start({ stateDir, bundle });
    const line = await waitFor("the listening log line", async () => logLines(installer).find((l) => l.message === "listening"));
    assert.deepEqual([line.codeCache, line.codeCacheFrom], ["used", "bundle"]);
    assert.equal((await installer.request("/v1/installer/status")).status, 200);
    await waitFor("the outdated cache removed", async () => ((await stat(stateLayout(stateDir).codeCache).catch(() => undefined)) ? undefined : true));
    assert.equal(await installer.stop(), 0);
    assert.deepEqual(logLines(installer).filter((l) => l.message.startsWith("code cache")), [], "nothing to warn of");
  });

  test("a cache beside the bundle that others could write, or made for another bundle, is not used: the start compiles without it", async () => {
    const bundle = await bundleCopy();
    assert.equal((await runCli(["prepare-image"], {}, ROOT, bundle)).code, 0);
    const file = `${bundle}.code-cache`;
    await chmod(file, 0o664);
    const writable = await lab.start({ stateDir: join(await tempDir(), "state"), bundle });
    assert.equal(await cacheState(writable), "rejected");
    const warning = await waitFor("the warning", async () => logLines(writable).find((l) => l.message === "code cache not read"));
    assert.match(warning.error!, /installer\.js\.code-cache is writable by others \(mode 664\)/);
    await writable.stop();

    await chmod(file, 0o644);
    const other = await bundleCopy();
    const text = await readFile(other, "utf8");
    const changed = text.replace("another --state-dir", "anotheR --state-dir");
    assert.notEqual(changed, text, "the other bundle differs from the one the cache was made for");
    await writeFile(other, changed);
    await copyFile(file, `${other}.code-cache`);
    const mismatched = await lab.start({ stateDir: join(await tempDir(), "state"), bundle: other });
    assert.equal(await cacheState(mismatched), "rejected");
    assert.equal((await mismatched.request("/v1/installer/status")).status, 200);
    // Every start of the image pays for it until the cache is made again: said, with how.
    const outdated = await waitFor("the word of it", async () => logLines(mismatched).find((l) => l.message === "the image's code cache is outdated"));
    assert.equal((outdated as { level?: string }).level, "warn");
    assert.equal((outdated as { hint?: string }).hint, `${other}.code-cache is not this start's (made for another installer.js, Node or flags, or damaged): each start compiles without it; run \`${await bundleNode()} ${other} prepare-image\` again, with the flags and NODE_OPTIONS the service runs with`);
    await mismatched.stop();

    // The state dir's own cache unreadable (others could write it) says so, and hides not the image's being outdated.
    const stateDir = join(await tempDir(), "state");
    await mkdir(stateDir, { mode: 0o700 });
    await writeFile(stateLayout(stateDir).codeCache, "damaged");
    await chmod(stateLayout(stateDir).codeCache, 0o666);
    const both = await lab.start({ stateDir, bundle: other });
    assert.equal(await cacheState(both), "rejected");
    const notRead = await waitFor("the state dir's warning", async () => logLines(both).find((l) => l.message === "code cache not read"));
    assert.match(notRead.error!, /code-cache is writable by others \(mode 666\)/);
    assert.doesNotMatch(notRead.error!, /installer\.js\.code-cache/, "the image's was read");
    await waitFor("the word of the image's", async () => logLines(both).find((l) => l.message === "the image's code cache is outdated"));
    await both.stop();
  });
});

const tempFiles = async (stateDir: string) => (await readdir(stateDir)).filter((name) => name.endsWith(".tmp"));

describe("the bundle's front", () => {
  test("--version, --help and code answer without the commands' code; the other commands need it", async () => {
    const folder = await tempDir();
    const bundle = await readFile(BUNDLE, "utf8");
    const broken = join(folder, "installer.js");
    await writeFile(broken, `${bundle.slice(0, bundle.lastIndexOf(MARK) + MARK.length)}//this is not JavaScript(\n`);
    await writeFile(join(folder, "package.json"), '{"type":"commonjs"}\n');
    await writeFile(join(folder, "install-code"), "ABCD-EFGH-JKMN\n");
    for (const args of [["--version"], ["--help"], ["code", "--state-dir", folder]]) {
      const [whole, front] = await Promise.all([runCli(args), runCli(args, {}, folder, broken)]);
      assert.equal(front.code, 0, `${args.join(" ")}: ${front.stderr}`);
      assert.equal(front.stdout, whole.stdout, args.join(" "));
    }
    const schema = await runCli(["schema"], {}, folder, broken);
    assert.equal(schema.code, 1);
    assert.match(schema.stderr, /^installer: this installer\.js is damaged \(SyntaxError: .*\); copy it again\n$/);
  });
});
