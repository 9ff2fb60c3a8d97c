import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { maxHeaderSize } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { generateSelfSignedCert } from "../../core/access/tls.ts";
import { generateInstallCode } from "../../core/access/install-code.ts";
import { stateLayout } from "../../core/state/layout.ts";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { makePayload } from "../../demo/make-payload.ts";
import { startReadinessServer, type Scenario } from "../../demo/readiness-server.ts";
import { BUNDLE, DEMO_HOST_FACTS, ROOT, harness, runCli, tempDir, untilNoBlockers, waitFor, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { COMMANDS } from "../../cli/flags.ts";
import { refusingServer } from "../helpers/refusing-server.ts";

const lab = harness();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The bundle with `input` on its stdin. */
function runWithInput(args: string[], input: string | Buffer): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [BUNDLE, ...args], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("close", (code) => resolve({ code, stdout, stderr }));
    proc.stdin.end(input);
  });
}

/** A real shell pipeline; its exit code is the installer's (bash's PIPESTATUS), not the reader's. */
function pipeline(installerArgs: string, reader: string): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn("bash", ["-c", `"${process.execPath}" "${BUNDLE}" ${installerArgs} | ${reader} >/dev/null; exit \${PIPESTATUS[0]}`], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** hostname on 2:11, an unknown key on 5:3, address and gateway missing, no way to log in. */
const BROKEN = "mode: single-node\nhostname: node_01\nnetwork:\n  interface: eno1\n  adress: 10.20.0.11/24\n";

async function fixtures() {
  const folder = await tempDir();
  const payload = join(folder, "payload");
  await makePayload(payload);
  const file = join(folder, "node,1.yaml");
  await writeFile(file, BROKEN);
  return { folder, file, flags: ["--host-facts", DEMO_HOST_FACTS, "--payload", payload] };
}

describe("validate", () => {
  test("a key or a file name holding escape sequences or a newline is shown written out, never obeyed, in every format; so are `code`'s and a start's paths", async () => {
    const { folder, flags } = await fixtures();
    const file = join(folder, "\u001b[2Jx.yaml");
    await writeFile(file, 'mode: single-node\n"\\e]0;PWNED\\a\\e[2J": bar\n"x\\n::warning file=evil.yaml,line=1::injected": 1\n');
    for (const format of ["text", "github", "json"]) {
      const run = await runCli(["validate", file, "--format", format, ...flags]);
      assert.equal(run.code, 1, run.stderr);
      assert.doesNotMatch(run.stdout, /[\u001b\u0007]/, `${format}: no escape sequence reaches the terminal`);
      assert.doesNotMatch(run.stdout, /^::warning/m, `${format}: no line of the file's making`);
      assert.match(run.stdout, format === "json" ? /\\u001b\]0;PWNED\\u0007/ : /\\x1b\]0;PWNED\\x07/, format);
      if (format === "json") assert.equal(JSON.parse(run.stdout).file, file, "the JSON parses back to the real name");
    }
    const missing = await runCli(["validate", join(folder, "\u001b]0;gone\u0007.yaml"), ...flags]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /\\x1b\]0;gone\\x07\.yaml: cannot read/);
    const code = await runCli(["code", "--state-dir", join(folder, "\u001b]0;PWN\u0007")]);
    assert.equal(code.code, 2);
    assert.doesNotMatch(code.stderr, /[\u001b\u0007]/);
    const serve = await runCli(["serve", "--state-dir", join(folder, "\u001b]0;PWN\u0007", "x"), "--tls-cert", join(folder, "\u001b[2Jnone.crt"), "--tls-key", join(folder, "none.key"), "--listen", "127.0.0.1:0"]);
    assert.notEqual(serve.code, 0);
    assert.doesNotMatch(serve.stderr, /[\u001b\u0007]/, serve.stderr);
    assert.match(serve.stderr, /\\x1b\[2Jnone\.crt/);
  });

  test("prints FILE:LINE:COL: error: field: message, the field once, then a count; exit 1", async () => {
    const { file, flags } = await fixtures();
    const run = await runCli(["validate", file, ...flags]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, "");
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.at(-1), `${file}: 5 problems`);
    const problems = lines.slice(0, -1).map((line) => {
      const match = /^(.*):(\d+):(\d+): error: (\S+): (.*)$/.exec(line);
      assert.ok(match, line);
      assert.equal(match[1], file);
      assert.ok(!match[5]!.startsWith(match[4]!), `the message repeats its field: ${line}`);
      return `${match[2]}:${match[3]} ${match[4]}`;
    });
    assert.deepEqual(problems, ["1:1 admin", "2:11 hostname", "3:1 network.address", "3:1 network.gateway", "5:3 network.adress"]);
    assert.ok(lines.includes(`${file}:2:11: error: hostname: "node_01" is not a valid RFC 1123 hostname: it contains "_"; a hostname has only letters a-z, digits 0-9, "-" and dots between labels`));
    assert.ok(lines.includes(`${file}:5:3: error: network.adress: is not a known key (did you mean network.address?)`));
  });

  test("--format json: the field errors as the API gives them, with the file and valid", async () => {
    const { file, flags } = await fixtures();
    const run = await runCli(["validate", file, ...flags, "--format", "json"]);
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(report), ["file", "valid", "errors"]);
    assert.equal(report.file, file);
    assert.equal(report.valid, false);
    assert.deepEqual(report.errors.map((e: { field: string; line: number; column: number }) => `${e.line}:${e.column} ${e.field}`), ["1:1 admin", "2:11 hostname", "3:1 network.address", "3:1 network.gateway", "5:3 network.adress"]);
    assert.match(report.errors[1].message, /^hostname "node_01" is not a valid RFC 1123 hostname/);
  });

  test("--format github: one ::error workflow command a problem, the file name escaped", async () => {
    const { file, flags } = await fixtures();
    const run = await runCli(["validate", file, ...flags, "--format", "github"]);
    assert.equal(run.code, 1);
    const lines = run.stdout.trimEnd().split("\n");
    const escaped = file.replaceAll(",", "%2C");
    assert.equal(lines.filter((line) => line.startsWith("::error ")).length, 5);
    assert.ok(lines.includes(`::error file=${escaped},line=5,col=3::network.adress: is not a known key (did you mean network.address?)`), lines.join("\n"));
    assert.equal(lines.at(-1), `${file}: 5 problems`);
  });

  test("- reads stdin, shown as <stdin>; an unknown --format is a usage error", async () => {
    const { flags } = await fixtures();
    const broken = await runWithInput(["validate", "-", ...flags], BROKEN);
    assert.equal(broken.code, 1, broken.stderr);
    assert.match(broken.stdout, /^<stdin>:1:1: error: admin: /);
    assert.match(broken.stdout, /^<stdin>:2:11: error: hostname: "node_01"/m);
    assert.match(broken.stdout, /^<stdin>: 5 problems$/m);
    const valid = await runWithInput(["validate", "-", ...flags], VALID_NODE_YAML);
    assert.deepEqual(valid, { code: 0, stdout: "<stdin>: valid\n", stderr: "" });
    const format = await runCli(["validate", "-", "--format", "xml"]);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /--format must be one of text, json, github, got "xml"/);
  });

  test("a node.yaml that is not UTF-8 (a Latin-1 comment, an editor's UTF-16) is exit 2 saying so, as the unattended install refuses it; never 'valid'; a UTF-8 BOM is fine", async () => {
    const { folder, flags } = await fixtures();
    const latin1 = Buffer.concat([Buffer.from("# n\xe9ud de test\n", "latin1"), Buffer.from(VALID_NODE_YAML)]);
    const utf16 = Buffer.from(`\ufeff${VALID_NODE_YAML}`, "utf16le");
    for (const [name, bytes] of [["latin1.yaml", latin1], ["utf16.yaml", utf16]] as const) {
      const file = join(folder, name);
      await writeFile(file, bytes);
      const run = await runCli(["validate", file, ...flags]);
      assert.deepEqual(run, { code: 2, stdout: "", stderr: `${file}: cannot read: it is not UTF-8 text (save it as UTF-8)\n` }, name);
    }
    const piped = await runWithInput(["validate", "-", ...flags], latin1);
    assert.deepEqual(piped, { code: 2, stdout: "", stderr: "<stdin>: cannot read: it is not UTF-8 text (save it as UTF-8)\n" });
    const bom = join(folder, "bom.yaml");
    await writeFile(bom, `\ufeff${VALID_NODE_YAML}`);
    assert.deepEqual(await runCli(["validate", bom, ...flags]), { code: 0, stdout: `${bom}: valid\n`, stderr: "" });
  });

  // It read each whole: /dev/zero until memory ran out (V8's heap trace, exit 134), a named pipe forever; a folder was
  // "EISDIR: illegal operation on a directory, read".
  test("a folder, a named pipe, a device, a file or stdin over 1 MiB is exit 2 saying what it is, at once, as the plan and the unattended node.yaml are refused", { timeout: 60_000 }, async () => {
    const { folder, flags } = await fixtures();
    const big = join(folder, "big.yaml");
    await writeFile(big, `mode: single-node\nhostname: ${"a".repeat(2 * 1024 * 1024)}\n`);
    const fifo = join(folder, "pipe.yaml");
    await new Promise<void>((resolve, reject) => spawn("mkfifo", [fifo]).on("close", (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo: ${code}`)))));
    for (const [file, said] of [
      [folder, "is a folder, not a file"],
      [fifo, "is a named pipe, not a file"],
      ["/dev/zero", "is a device or socket, not a file"],
      [big, `is ${2 * 1024 * 1024 + 29} bytes, over the 1048576 a file here may have`],
    ] as const) {
      assert.deepEqual(await runCli(["validate", file, ...flags]), { code: 2, stdout: "", stderr: `${file}: cannot read: it ${said}\n` }, file);
    }
    const zeros = await new Promise<Run>((resolve) => {
      const proc = spawn("bash", ["-c", `"${process.execPath}" "${BUNDLE}" validate - ${flags.join(" ")} < /dev/zero`], { cwd: ROOT });
      let stdout = "";
      let stderr = "";
      proc.stdout.on("data", (d) => (stdout += d));
      proc.stderr.on("data", (d) => (stderr += d));
      proc.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    assert.deepEqual(zeros, { code: 2, stdout: "", stderr: "<stdin>: cannot read: it is over the 1048576 bytes a file here may have\n" });
  });

  test("a --host-facts that cannot be read or parsed is exit 2 (cannot check), never 1, which says the node.yaml is invalid", async () => {
    const { folder, flags } = await fixtures();
    const file = join(folder, "node.yaml");
    await writeFile(file, VALID_NODE_YAML);
    const broken = join(folder, "facts.json");
    await writeFile(broken, "{");
    const rest = flags.slice(2);
    for (const facts of [join(folder, "none.json"), broken]) {
      const run = await runCli(["validate", file, "--host-facts", facts, ...rest]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /host facts file/);
      assert.equal(run.stdout, "");
    }
  });
});

describe("a closed stdout (EPIPE)", () => {
  test("openapi | head -c 10 ends quietly: no stack trace, exit 0", async () => {
    const run = await pipeline("openapi", "head -c 10");
    assert.deepEqual(run, { code: 0, stdout: "", stderr: "" });
  });

  test("validate … | head -c 10 too, with output well past the pipe's buffer", async () => {
    const { folder, flags } = await fixtures();
    const many = join(folder, "many.yaml");
    const keys = (indent: string) => Array.from({ length: 50 }, (_, i) => `${indent}${"k".repeat(900)}${i}: 1`).join("\n");
    await writeFile(many, `mode: single-node\n${keys("")}\nnetwork:\n${keys("  ")}\nadmin:\n${keys("  ")}\ncluster:\n${keys("  ")}\n`);
    const full = await runCli(["validate", many, ...flags]);
    // Past a pipe's 64 KiB buffer: 200 problems of about 500 bytes (each key cut in its path and its message).
    assert.ok(full.stdout.length > 96 * 1024, `${full.stdout.length} bytes`);
    const run = await pipeline(`validate "${many}" ${flags.map((f) => `"${f}"`).join(" ")}`, "head -c 10");
    assert.deepEqual(run, { code: 0, stdout: "", stderr: "" });
  });
});

describe("the bundle copied alone", () => {
  test("under a package.json that says \"type\": \"module\" it says what to do, exit 2, no stack trace (it is CommonJS)", async () => {
    const folder = await tempDir();
    await mkdir(join(folder, "opt"));
    await writeFile(join(folder, "package.json"), '{"type":"module"}\n');
    await copyFile(BUNDLE, join(folder, "opt/installer.js"));
    for (const args of [["--version"], ["code"], ["serve"]]) {
      const run = await runCli(args, {}, folder, join(folder, "opt/installer.js"));
      assert.equal(run.code, 2, args.join(" "));
      assert.equal(run.stdout, "");
      assert.equal(
        run.stderr,
        `installer: ${join(folder, "opt/installer.js")} is CommonJS, but Node loads it as an ES module here: a package.json in its folder or one above says "type": "module". Put a package.json holding {"type":"commonjs"} beside it, or copy it to a folder without one.\n`,
      );
    }
    await writeFile(join(folder, "opt/package.json"), '{"type":"commonjs"}\n');
    assert.match((await runCli(["--version"], {}, folder, join(folder, "opt/installer.js"))).stdout, /^stratum-installer /, "as the message says, it then runs");
  });
});

describe("help and -V", () => {
  test("`help` is --help and -V is --version; the help documents validate's formats and status", async () => {
    const [help, dashHelp, v, version] = await Promise.all([runCli(["help"]), runCli(["--help"]), runCli(["-V"]), runCli(["--version"])]);
    assert.equal(help.code, 0);
    assert.equal(help.stdout, dashHelp.stdout);
    assert.equal(v.code, 0);
    assert.equal(v.stdout, version.stdout);
    for (const text of ["validate FILE|-", "--format", "github", "<stdin>", "status [--follow]", "--port", "--url", "--follow", "-V", "[--support-bundle DIR]", "[--tls-key F]"]) {
      assert.ok(help.stdout.includes(text), text);
    }
  });

  test("COMMAND --version (or -V) is --version for every command, fleet included (with --help too: fleet's help is its own, not the front's); after -- a plan's name", async () => {
    const version = (await runCli(["--version"])).stdout;
    assert.match(version, /^stratum-installer /);
    const commands = ["serve", "validate", "status", "openapi", "schema", "code", "fleet", "support-bundle", "prepare-image"];
    const runs = await Promise.all([...commands.map((c) => runCli([c, "--version"])), runCli(["fleet", "plan.yaml", "-V"])]);
    for (const [i, run] of runs.entries()) assert.deepEqual([run.code, run.stdout, run.stderr], [0, version, ""], commands[i] ?? "fleet plan.yaml -V");
    const [both, planNamed] = await Promise.all([runCli(["fleet", "--help", "--version"]), runCli(["fleet", "--", "-V"], {}, await tempDir())]);
    assert.deepEqual([both.code, both.stdout], [0, version], "not refused");
    assert.match(planNamed.stderr, /^-V:1:1 \(plan\): cannot read the plan: ENOENT/);
  });

  test("COMMAND --help: that command's usage and every flag it takes, with no other command's", async () => {
    const [validate, status, serve] = await Promise.all([runCli(["validate", "--help"]), runCli(["status", "--help"]), runCli(["serve", "--help"])]);
    for (const run of [validate, status, serve]) assert.equal(run.code, 0);
    assert.match(validate.stdout, /^ {2}node installer\.js validate FILE\|-/m);
    for (const flag of ["--format", "--host-facts", "--payload"]) assert.match(validate.stdout, new RegExp(`^ {2}${flag} `, "m"), flag);
    assert.doesNotMatch(validate.stdout, /installer\.js (status|fleet|serve)|--listen/);
    for (const flag of ["--follow", "--port", "--url", "--tls-cert", "--state-dir"]) assert.match(status.stdout, new RegExp(`^ {2}${flag} `, "m"), flag);
    assert.doesNotMatch(status.stdout, /installer\.js validate/);
    assert.match(serve.stdout, /^ {2}--listen /m);
    const bundle = await runCli(["support-bundle", "--help"]);
    for (const flag of ["--state-dir", "--output", "--payload", "--host-facts", "--tls-key", "--summary FILE"]) assert.match(bundle.stdout, new RegExp(`^ {2}${flag} `, "m"), flag);
  });

  test("fleet -h is fleet --help, as -h is --help for every other command; after -- it is a plan's name", async () => {
    const [short, long, planNamed] = await Promise.all([runCli(["fleet", "-h"]), runCli(["fleet", "--help"]), runCli(["fleet", "--", "-h"], {}, await tempDir())]);
    assert.equal(short.code, 0, short.stderr);
    assert.equal(short.stdout, long.stdout);
    assert.match(short.stdout, /^Usage: node installer\.js fleet PLAN\.yaml/);
    assert.equal(planNamed.code, 2);
    assert.match(planNamed.stderr, /^-h:1:1 \(plan\): cannot read the plan: ENOENT/);
  });

  test("fleet - (stdin, as validate - reads it) is a usage error saying the plan is a file, not a plan file named -", async () => {
    const run = await runWithInput(["fleet", "-", "--dry-run"], "cluster: {}\n");
    assert.deepEqual(run, { code: 2, stdout: "", stderr: 'installer: fleet reads its plan from a file, not from stdin (-): the plan\'s file: codes, its state file and its report are beside it; write the plan to a file and give its path\nRun "node installer.js --help" for usage.\n' });
  });

  // `fleet "$PLAN"` with PLAN unset was ":1:1 (plan): cannot read the plan: ENOENT: no such file or directory, open ''".
  test("an empty path (an unset variable: fleet \"$PLAN\", validate \"$FILE\") is a usage error saying so, not a file named nothing", async () => {
    const [fleet, validate] = await Promise.all([runCli(["fleet", ""]), runCli(["validate", ""])]);
    assert.deepEqual(fleet, { code: 2, stdout: "", stderr: 'installer: fleet\'s PLAN.yaml is an empty path (an unset variable?)\nRun "node installer.js --help" for usage.\n' });
    assert.deepEqual(validate, { code: 2, stdout: "", stderr: 'installer: validate\'s FILE is an empty path (an unset variable?)\nRun "node installer.js --help" for usage.\n' });
  });

  test("`help COMMAND` is `COMMAND --help`, `help help` too; `help` of no such command is a usage error", async () => {
    const [help, dashHelp, bogus, helpHelp, helpDashHelp] = await Promise.all([runCli(["help", "status"]), runCli(["status", "--help"]), runCli(["help", "staus"]), runCli(["help", "help"]), runCli(["help", "--help"])]);
    assert.equal(help.code, 0);
    assert.equal(help.stdout, dashHelp.stdout);
    assert.equal(helpHelp.code, 0, helpHelp.stderr);
    assert.equal(helpHelp.stdout, helpDashHelp.stdout);
    assert.match(helpHelp.stdout, /^ {2}node installer\.js help COMMAND \| COMMAND --help/m);
    assert.doesNotMatch(helpHelp.stdout, /installer\.js (status|validate|fleet)/, "help's part alone");
    assert.equal(bogus.code, 2);
    assert.equal(bogus.stdout, "");
    assert.match(bogus.stderr, /unknown command "staus"; did you mean "status"\?/);
  });

  test("`help COMMAND` prints what `COMMAND --help` prints, for every command (fleet's plan format and flags too, not its line of the main help)", async () => {
    const commands = COMMANDS.filter((command) => command !== "help");
    const runs = await Promise.all(commands.map((command) => Promise.all([runCli(["help", command]), runCli([command, "--help"])])));
    for (const [i, [help, dashHelp]] of runs.entries()) {
      assert.deepEqual([help.code, help.stdout, help.stderr], [0, dashHelp.stdout, ""], commands[i]);
      assert.equal(dashHelp.code, 0, commands[i]);
    }
    const fleet = runs[commands.indexOf("fleet")]![0];
    assert.match(fleet.stdout, /^Usage: node installer\.js fleet PLAN\.yaml/);
    assert.match(fleet.stdout, /^ {2}--support-bundle DIR$/m);
  });

  test("a typo of a command or a flag is refused as before (exit 2), with what was meant", async () => {
    const [command, flag] = await Promise.all([runCli(["stauts"]), runCli(["status", "--state-dri", "/nowhere"])]);
    assert.deepEqual([command.code, command.stdout], [2, ""]);
    assert.match(command.stderr, /^installer: unknown command "stauts"; did you mean "status"\? commands: serve, /);
    assert.deepEqual([flag.code, flag.stdout], [2, ""]);
    assert.match(flag.stderr, /^installer: Unknown option '--state-dri'\. Did you mean --state-dir\?\n/);
  });

  test("support-bundle's --summary mistyped is meant as --summary, as any command's flag; `help TYPO` lists the commands as a typo of one does", async () => {
    const [summary, command, help] = await Promise.all([runCli(["support-bundle", "--sumary", "b.tar.gz"]), runCli(["stauts"]), runCli(["help", "stauts"])]);
    assert.deepEqual([summary.code, summary.stdout], [2, ""]);
    assert.match(summary.stderr, /^installer: Unknown option '--sumary'\. Did you mean --summary\?\n/);
    const listed = (stderr: string) => /commands: (.*)\n/.exec(stderr)?.[1];
    assert.equal(listed(help.stderr), listed(command.stderr));
  });

  test("a bad value from the environment (STRATUM_PORT, STRATUM_FORMAT in installer.env) names the variable, not a flag nobody typed", async () => {
    const folder = await tempDir();
    const status = await runCli(["status", "--state-dir", folder], { STRATUM_PORT: "94430" });
    assert.equal(status.code, 2);
    assert.match(status.stderr, /^installer: STRATUM_PORT \(from the environment; under systemd \/etc\/stratum\/installer.env\) must be a port number, got "94430"\n/);
    const validate = await runCli(["validate", join(folder, "node.yaml")], { STRATUM_FORMAT: "yaml" });
    assert.equal(validate.code, 2);
    assert.match(validate.stderr, /^installer: STRATUM_FORMAT \(from the environment; under systemd \/etc\/stratum\/installer.env\) must be one of text, json, github, got "yaml"\n/);
    const typed = await runCli(["status", "--state-dir", folder, "--port=x"], { STRATUM_PORT: "94430" });
    assert.match(typed.stderr, /^installer: --port must be a port number, got "x"\n/, "the one typed is the one named");
  });

  test("after -- a -h or -V is a FILE, not a request for help or the version", async () => {
    const folder = await tempDir();
    for (const name of ["-h", "--help", "-V"]) {
      const run = await runCli(["validate", "--", name], {}, folder);
      assert.equal(run.code, 2, run.stdout);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`^${name}: cannot read: ENOENT`));
    }
  });

  test("a command that takes no arguments refuses one (a stray word is a typo, not ignored)", async () => {
    const folder = await tempDir();
    for (const args of [["openapi", "extra"], ["schema", "extra"], ["code", "extra", "--state-dir", folder], ["prepare-image", "extra"]]) {
      const run = await runCli(args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`${args[0]} takes no arguments, got "extra"`));
    }
  });

  test("status, code, support-bundle or serve DIR, a directory given without --state-dir: refused as before (exit 2), asking whether --state-dir DIR was meant; another stray word is not", async () => {
    const folder = await tempDir();
    for (const command of ["status", "code", "support-bundle", "serve"]) {
      const [dir, word] = await Promise.all([runCli([command, folder]), runCli([command, join(folder, "nope")])]);
      assert.deepEqual([dir.code, dir.stdout], [2, ""], command);
      assert.match(dir.stderr, new RegExp(`^installer: ${command} takes no arguments, got "${folder}"; did you mean --state-dir ${folder}\\?\n`));
      assert.deepEqual([word.code, word.stdout], [2, ""], command);
      assert.match(word.stderr, new RegExp(`^installer: ${command} takes no arguments, got "[^"]*nope"\n`));
    }
  });
});

/**
 * An installer whose firstboot takes `firstbootSeconds`, polling a cloud in `scenario`. A gated one's firstboot waits
 * for letFirstbootGo(node) first: a test sees the attempt running however slow the machine.
 */
async function installer(scenario: Scenario, options: { timeout?: number; firstbootSeconds?: number; firstbootSays?: string; gated?: boolean } = {}): Promise<Lab> {
  const folder = await tempDir();
  const readiness = await startReadinessServer({ port: 0, scenario, stageMs: 200 });
  lab.defer(() => readiness.close());
  const firstboot = await writeFirstboot(folder, `#!/bin/sh\necho "firstboot: configuring"\n${options.firstbootSays ?? ""}\n${options.gated ? GATE : ""}\nsleep ${options.firstbootSeconds ?? 0}\necho "firstboot: done"\n`);
  const stateDir = join(folder, "state");
  const args = ["--firstboot", firstboot, "--node-yaml", join(folder, "etc/node.yaml"), "--readiness-url", readiness.url, "--readiness-timeout", String(options.timeout ?? 10), "--readiness-interval", "0.1"];
  const started = await lab.start({ stateDir, args });
  await untilNoBlockers(started);
  // The helper listens on port 0; a restart listens again on the port the first start was given (the last --listen wins).
  return { ...started, restart: (listen = `127.0.0.1:${started.port}`) => lab.start({ stateDir, args: [...args, "--listen", listen] }) };
}

/** A lab installer, and its start again on the same state dir and flags, on its port (as systemd restarts it) unless `listen` says another. */
type Lab = RunningInstaller & { restart(listen?: string): Promise<RunningInstaller> };

const GATE = `while [ ! -e "$(dirname "$0")/go" ]; do sleep 0.05; done`;
const letFirstbootGo = (node: RunningInstaller) => writeFile(join(dirname(node.stateDir), "go"), "");

async function install(target: RunningInstaller): Promise<void> {
  assert.equal((await target.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  assert.equal((await target.request("/v1/installer/install", { method: "POST" })).status, 202);
}

const statusOf = (target: RunningInstaller, ...more: string[]) => ["status", "--state-dir", target.stateDir, "--port", String(target.port), ...more];

/** `status --follow` as a process: its output so far, and its end. */
function follow(args: string[]) {
  const proc = spawn(process.execPath, [BUNDLE, ...args], { cwd: ROOT });
  lab.defer(() => (proc.exitCode === null ? proc.kill("SIGKILL") : undefined));
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const ended = new Promise<Run>((resolve) => proc.on("close", (code) => resolve({ code, stdout, stderr })));
  return { proc, output: () => stdout, errors: () => stderr, ended };
}

/** An install of a gated node, followed by `status --follow` into firstboot, and the installer then killed -9 under it. */
async function followedThenKilled(node: RunningInstaller) {
  await install(node);
  const following = follow(statusOf(node, "--follow"));
  await waitFor("status --follow to follow firstboot", async () => (following.output().includes("firstboot: configuring") ? true : undefined));
  await node.kill9();
  return following;
}

describe("status", () => {
  test("--state-dir alone reaches the installer on the port its last start listened on; --port still wins", async () => {
    const node = await installer("ready");
    assert.notEqual(node.port, 9443);
    const found = await runCli(["status", "--state-dir", node.stateDir]);
    assert.equal(found.code, 0, found.stdout + found.stderr);
    assert.match(found.stdout, /^phase +configuring: no install attempt yet\n/);
    const nobody = await refusingServer();
    lab.defer(() => nobody.close());
    const told = await runCli(["status", "--state-dir", node.stateDir, "--port", String(nobody.port)]);
    assert.equal(told.code, 2, "--port still wins");
    assert.match(told.stderr, new RegExp(`127\\.0\\.0\\.1:${nobody.port}\\b`));
  });

  test("--follow waits for an install, prints its events live and exits 0 when it succeeds; then status says done", async () => {
    const node = await installer("progress", { firstbootSeconds: 1 });
    const before = await runCli(statusOf(node));
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /^phase +configuring: no install attempt yet\n/);
    assert.match(before.stdout, /^node +node-01, single-node, config not valid yet$/m);

    const following = follow(statusOf(node, "--follow"));
    await waitFor("status --follow to wait", async () => (following.output().includes("waiting for an install attempt to start") ? true : undefined));
    await install(node);
    const run = await following.ended;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, "");
    const lines = run.stdout.trimEnd().split("\n");
    const events = lines.filter((line) => /^\d\d:\d\d:\d\dZ /.test(line)).map((line) => line.slice(10).replace(/ +/, " "));
    assert.equal(events[0], "attempt install attempt 1 started by a person", "the replay from the attempt's start");
    assert.deepEqual(events.filter((line) => / (started|succeeded)$/.test(line)), [
      "preflight preflight started",
      "preflight preflight succeeded",
      "write-config write-config started",
      "write-config write-config succeeded",
      "firstboot firstboot started",
      "firstboot firstboot succeeded",
      "readiness readiness started",
      "readiness readiness succeeded",
    ]);
    assert.ok(events.includes("firstboot firstboot: configuring"), "firstboot's output is followed");
    assert.ok(events.some((line) => line.startsWith("readiness CEPH_BOOTSTRAP")), "and readiness");
    assert.equal(lines.at(-1), "attempt 1 succeeded");

    const after = await runCli(statusOf(node));
    assert.equal(after.code, 0, after.stderr);
    assert.match(after.stdout, /^phase +done: attempt 1 finished \d{4}-\d\d-\d\dT/);
    assert.match(after.stdout, /^verdict +attempt 1 succeeded\n {11}The node is installed and the cloud reports READY\.$/m);
    const done = await runCli(statusOf(node, "--follow"));
    assert.deepEqual(done, after, "--follow on a finished install says the same and ends");
  });

  test("a firstboot's escape sequences (title, clear screen, cursor report, colour) reach the operator's terminal shown, never obeyed", async () => {
    const node = await installer("ready", { firstbootSays: String.raw`printf '\033]0;owned\007\033[2J\033[6n\033[31mred\302\233J\n'` });
    const following = follow(statusOf(node, "--follow"));
    await waitFor("status --follow to wait", async () => (following.output().includes("waiting for an install attempt to start") ? true : undefined));
    await install(node);
    const run = await following.ended;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok(run.stdout.includes(String.raw`\x1b]0;owned\x07\x1b[2J\x1b[6n\x1b[31mred\x9bJ`), run.stdout);
    assert.deepEqual(run.stdout.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/g), null);
  });

  test("a failed attempt: --follow of the running attempt and status exit 1 with the verdict; another installer's certificate, or none, exit 2", async () => {
    const node = await installer("never", { timeout: 4, gated: true });
    await install(node);
    const following = follow(statusOf(node, "--follow"));
    await waitFor("status --follow to follow the attempt", async () => (/^phase +installing: attempt 1, step /m.test(following.output()) ? true : undefined));
    await letFirstbootGo(node);
    const live = await following.ended;
    assert.equal(live.code, 1, live.stdout + live.stderr);
    assert.match(live.stdout, /^phase +installing: attempt 1, step /);
    assert.equal(live.stdout.trimEnd().split("\n").at(-1), "attempt 1 failed at readiness: READINESS_TIMEOUT; next: recheckReadiness");

    const status = await runCli(statusOf(node));
    assert.equal(status.code, 1);
    assert.match(status.stdout, /^phase +failed: attempt 1 finished /);
    assert.match(status.stdout, /^verdict +attempt 1 failed at readiness: READINESS_TIMEOUT; next: recheckReadiness\n {11}The cloud was not READY within 4 s/m);

    const other = await lab.start();
    const pinned = await runCli(["status", "--state-dir", node.stateDir, "--port", String(other.port)]);
    assert.equal(pinned.code, 2);
    assert.equal(pinned.stdout, "");
    assert.match(pinned.stderr, /presents another certificate .* so the install code was not sent/);
    assert.doesNotMatch(other.output().stderr, /wrong install code/, "the other installer never saw the code");

    const nobody = await refusingServer();
    lab.defer(() => nobody.close());
    const closed = await runCli(["status", "--state-dir", node.stateDir, "--url", nobody.url("https")]);
    assert.equal(closed.code, 2);
    assert.match(closed.stderr, new RegExp(`^status: cannot reach the installer at https://127\\.0\\.0\\.1:${nobody.port}`));
    // Port 0: no server can listen there, so the connection is refused, as it is once the service has stopped.
    const stopped = await runCli(["status", "--state-dir", node.stateDir, "--url", "https://127.0.0.1:0"]);
    assert.equal(stopped.code, 2);
    assert.match(stopped.stderr, /^status: cannot reach the installer at https:\/\/127\.0\.0\.1:0: connect ECONNREFUSED .*; nothing listens there: is the installer running\? \(systemctl status stratum-installer\)\n$/);
    const noState = await runCli(["status", "--state-dir", join(node.stateDir, "nope")]);
    assert.equal(noState.code, 2);
    assert.match(noState.stderr, /no install code in .*nope: is it the installer's state dir \(--state-dir\)\?/);
  });

  test("--follow of an installer killed and restarted on its state dir and port: it says the link is lost and that it tries again, then that the restart interrupted the attempt, and how to go on", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    await waitFor("status --follow to say it lost the installer", async () => (following.errors().includes("lost the installer") ? true : undefined));
    assert.match(following.errors(), /^status: lost the installer at https:\/\/127\.0\.0\.1:\d+ while following attempt 1 \(.+\): trying again for \d+ s \(Ctrl-C to stop\)\n$/);
    await node.restart();
    const run = await following.ended;
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.at(-1), "attempt 1 failed at firstboot: INTERRUPTED; next: retryInstall");
    // firstboot had begun: the verdict's own words, and a check before the install that runs it again.
    assert.match(
      run.stderr,
      /^status: the installer answers again: following attempt 1 on\nstatus: the installer restarted while attempt 1 ran, which it marked INTERRUPTED: The installer stopped during firstboot \(killed or rebooted\); retry the install\. firstboot had begun: check on the node what it did before you start the install again \(the console, or POST \/v1\/installer\/install\), which runs firstboot again\.\n$/m,
    );
  });

  test("--follow of an installer stopped (SIGTERM, as systemctl restart sends) and started again: it says the installer said it stops, tries again, then follows the attempt to its INTERRUPTED", async () => {
    const node = await installer("ready", { gated: true });
    await install(node);
    const following = follow(statusOf(node, "--follow"));
    await waitFor("status --follow to follow firstboot", async () => (following.output().includes("firstboot: configuring") ? true : undefined));
    assert.equal(await node.stop(), 0);
    await waitFor("status --follow to say it lost the installer", async () => (following.errors().includes("lost the installer") ? true : undefined));
    assert.match(following.errors(), /^status: lost the installer at https:\/\/127\.0\.0\.1:\d+ while following attempt 1 \(it said it stops: a restart, or a stop\): trying again for \d+ s \(Ctrl-C to stop\)\n$/);
    await node.restart();
    const run = await following.ended;
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(run.stdout.trimEnd().split("\n").at(-1), "attempt 1 failed at firstboot: INTERRUPTED; next: retryInstall");
    assert.match(run.stderr, /^status: the installer answers again: following attempt 1 on$/m);
  });

  test("--follow with no --port (where the last start listened) of an installer restarted on another port: it follows it there, saying so", async () => {
    const node = await installer("ready", { gated: true });
    await install(node);
    const following = follow(["status", "--state-dir", node.stateDir, "--follow"]);
    await waitFor("status --follow to follow firstboot", async () => (following.output().includes("firstboot: configuring") ? true : undefined));
    assert.equal(await node.stop(), 0);
    await waitFor("status --follow to say it lost the installer", async () => (following.errors().includes("lost the installer") ? true : undefined));
    const moved = await node.restart("127.0.0.1:0");
    assert.notEqual(moved.port, node.port);
    const run = await following.ended;
    assert.equal(run.stdout.trimEnd().split("\n").at(-1), "attempt 1 failed at firstboot: INTERRUPTED; next: retryInstall", run.stderr);
    assert.match(run.stderr, new RegExp(`^status: the installer's last start listens at https://127\\.0\\.0\\.1:${moved.port}, not https://127\\.0\\.0\\.1:${node.port}: following it there$`, "m"));
  });

  test("--follow that reads an attempt's failure after a newer attempt started (a recheck started while it was not reading): it says so and follows the newer one, not exit 1 on the old verdict while the node installs", async () => {
    const node = await installer("never", { timeout: 2, gated: true });
    await install(node);
    const following = follow(statusOf(node, "--follow"));
    await waitFor("status --follow to follow firstboot", async () => (following.output().includes("firstboot: configuring") ? true : undefined));
    // Not reading (a slow terminal, a stalled link): the failure and the recheck happen before it reads on.
    following.proc.kill("SIGSTOP");
    lab.defer(() => (following.proc.exitCode === null ? following.proc.kill("SIGCONT") : undefined));
    await letFirstbootGo(node);
    await waitFor("attempt 1 to fail", async () => ((await node.request("/v1/installer/status")).json.phase === "failed" ? true : undefined), 60_000);
    assert.equal((await node.request("/v1/installer/install/recheck-readiness", { method: "POST" })).status, 202);
    following.proc.kill("SIGCONT");
    const run = await following.ended;
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.ok(lines.includes("attempt 1 failed at readiness: READINESS_TIMEOUT; next: recheckReadiness"), run.stdout);
    assert.equal(lines.at(-1), "attempt 2 failed at readiness: READINESS_TIMEOUT; next: recheckReadiness");
    assert.match(run.stderr, /^status: attempt 2 was started after attempt 1 ended: following attempt 2\n$/);
  });

  test("--follow of an installer restarted while a newer attempt was started and finished: after the old attempt's INTERRUPTED it says so and follows the newer one, not \"start the install again\"", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    await waitFor("status --follow to say it lost the installer", async () => (following.errors().includes("lost the installer") ? true : undefined));
    // Out of the follow's reach (another port): the restart marks attempt 1 INTERRUPTED and attempt 2 runs to its end.
    const aside = await node.restart("127.0.0.1:0");
    await untilNoBlockers(aside);
    await letFirstbootGo(node);
    await install(aside);
    await waitFor("attempt 2 to succeed", async () => ((await aside.request("/v1/installer/status")).json.phase === "done" ? true : undefined));
    await aside.kill9();
    await node.restart();
    const run = await following.ended;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.ok(lines.includes("attempt 1 failed at firstboot: INTERRUPTED; next: retryInstall"), run.stdout);
    assert.equal(lines.at(-1), "attempt 2 succeeded");
    assert.doesNotMatch(run.stderr, /start the install again/);
    assert.match(run.stderr, /^status: the installer restarted while attempt 1 ran, which it marked INTERRUPTED; attempt 2 was started since: following attempt 2$/m);
  });

  test("--follow of an installer restarted on a cleared state dir (no store, no events): exit 2 saying it no longer has the attempt, and what status says now, not a bare HTTP 404", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    const { store, events } = stateLayout(node.stateDir);
    await Promise.all([rm(store, { force: true }), rm(events, { recursive: true, force: true })]);
    await node.restart();
    const run = await following.ended;
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.doesNotMatch(run.stderr, /answered HTTP 404/);
    assert.match(run.stderr, new RegExp(`^status: the installer at https://127\\.0\\.0\\.1:${node.port} no longer has attempt 1: its state dir was replaced or cleared since the attempt started\\. It says now: configuring: no install attempt yet\n$`, "m"));
  });

  test("--follow of an installer that, restarted, refuses this address (locked out after wrong codes, HTTP 429): exit 2 in status's words for a lockout, not a bare \"answered HTTP 429\"", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    // Out of the follow's reach (another port): wrong codes from this address lock it out, in the store the restart keeps.
    const aside = await node.restart("127.0.0.1:0");
    for (let i = 0; i < 6; i += 1) await aside.request("/v1/installer/status", { code: "AAAA-BBBB-CCCC" });
    await aside.kill9();
    await node.restart();
    const run = await following.ended;
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.doesNotMatch(run.stderr, /answered HTTP 429/);
    assert.match(run.stderr, /^status: the installer at https:\/\/127\.0\.0\.1:\d+ refuses tries from this address for a while \(HTTP 429, for \d+ s more by its Retry-After\)/m);
  });

  test("--follow waiting for an attempt, of an installer killed and restarted: it says so, waits on, and follows the attempt the restarted installer runs", async () => {
    const node = await installer("ready");
    const following = follow(statusOf(node, "--follow"));
    await waitFor("status --follow to wait", async () => (following.output().includes("waiting for an install attempt to start") ? true : undefined));
    await node.kill9();
    await waitFor("status --follow to say it lost the installer", async () => (following.errors().includes("lost the installer") ? true : undefined));
    const again = await node.restart();
    await untilNoBlockers(again);
    await install(again);
    const run = await following.ended;
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stdout.trimEnd().split("\n").at(-1), "attempt 1 succeeded");
    assert.match(run.stderr, /^status: lost the installer at https:\/\/127\.0\.0\.1:\d+ while waiting for an install attempt to start \(.+\): trying again for \d+ s \(Ctrl-C to stop\)\nstatus: the installer answers again: waiting for an install attempt to start on\n$/);
  });

  test("--follow of an installer restarted with a new certificate: it names the new certificate, pins the one its state dir now holds, never another's", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    const { tlsCert, tlsKey } = stateLayout(node.stateDir);
    await Promise.all([rm(tlsCert), rm(tlsKey)]);
    const again = await node.restart();
    assert.notEqual(again.fingerprint, node.fingerprint);
    const run = await following.ended;
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(run.stdout.trimEnd().split("\n").at(-1), "attempt 1 failed at firstboot: INTERRUPTED; next: retryInstall");
    const sha = again.fingerprint.replaceAll(":", "").toLowerCase();
    assert.match(run.stderr, new RegExp(`^status: the installer at https://127\\.0\\.0\\.1:${node.port} restarted with a new certificate, SHA-256 ${sha}, the one its state dir now holds: following on with that one$`, "m"));
  });

  test("--follow of an installer restarted with a new install code (its install-code emptied, as a rotation does): it follows on with the state dir's new code, and says so", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    await writeFile(stateLayout(node.stateDir).installCode, "");
    const again = await node.restart();
    assert.notEqual(again.code, node.code);
    const run = await following.ended;
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(run.stdout.trimEnd().split("\n").at(-1), "attempt 1 failed at firstboot: INTERRUPTED; next: retryInstall");
    assert.match(run.stderr, /^status: the installer at https:\/\/127\.0\.0\.1:\d+ runs with a new install code, the one its state dir now holds: following on with that one$/m);
    assert.ok(!run.stderr.includes(again.code) && !run.stdout.includes(again.code), "the code itself is never printed");
  });

  test("--follow of an installer whose port another installer took meanwhile: exit 2 at once naming the other certificate, the install code never sent to it", async () => {
    const node = await installer("ready", { gated: true });
    const following = await followedThenKilled(node);
    const other = await lab.start({ args: ["--listen", `127.0.0.1:${node.port}`] });
    const run = await following.ended;
    assert.equal(run.code, 2, run.stdout + run.stderr);
    const sha = other.fingerprint.replaceAll(":", "").toLowerCase();
    assert.match(run.stderr, new RegExp(`^status: https://127\\.0\\.0\\.1:${node.port} presents another certificate \\(SHA-256 ${sha}\\) than the state dir's: it is not the installer of that state dir, so the install code was not sent\n$`, "m"));
    assert.doesNotMatch(run.stderr, /restarted with a new certificate/);
    assert.doesNotMatch(other.output().stderr, /wrong install code/, "the other installer never saw the code");
  });

  test("status with a code in the state dir that the installer refuses (install-code changed since it started): exit 2 naming the file and where the code it runs with is, not `installer code` (which prints the same file)", async () => {
    const node = await lab.start();
    await writeFile(stateLayout(node.stateDir).installCode, "AAAA-BBBB-CCCC\n");
    const run = await runCli(statusOf(node));
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, "");
    assert.doesNotMatch(run.stderr, /installer\.js code/);
    assert.equal(
      run.stderr,
      `status: the installer at https://127.0.0.1:${node.port} refused the install code in ${stateLayout(node.stateDir).installCode} (HTTP 401): it runs with another one. ` +
        "Its certificate is the state dir's, so it is that state dir's installer, and the file was changed since it started: the code it runs with is in its banner (journalctl -u stratum-installer)\n",
    );
  });

  test("status locked out after wrong install codes (HTTP 429): exit 2 saying the installer refuses this address for a while, for how long, and that the state dir's code is not the one it runs with, not `installer code`", async () => {
    const node = await lab.start();
    const wrong = "AAAA-BBBB-CCCC";
    await writeFile(stateLayout(node.stateDir).installCode, `${wrong}\n`);
    for (let i = 0; i < 6; i += 1) await node.request("/v1/installer/status", { code: wrong });
    const run = await runCli(statusOf(node));
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, "");
    assert.doesNotMatch(run.stderr, /installer\.js code/);
    assert.match(
      run.stderr,
      new RegExp(
        `^status: the installer at https://127\\.0\\.0\\.1:${node.port} refuses tries from this address for a while \\(HTTP 429, for \\d+ s more by its Retry-After\\) because of wrong install codes sent to it; meanwhile it refuses even the right one\\. ` +
          `If \`status\` sent them, the code in ${stateLayout(node.stateDir).installCode.replaceAll(".", "\\.")} is not the one the running installer has \\(the file was changed since it started\\): that one is in its banner \\(journalctl -u stratum-installer\\)\n$`,
      ),
    );
  });

  test("`status` and `code` on a state dir whose install-code file is empty say so, not that it is the wrong state dir", async () => {
    const stateDir = await tempDir();
    await writeFile(stateLayout(stateDir).installCode, "\n");
    for (const command of ["status", "code"]) {
      const result = await runCli([command, "--state-dir", stateDir]);
      assert.equal(result.code, 2, command);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, new RegExp(`install-code is empty: the installer makes a new code there when it next starts`), command);
      assert.doesNotMatch(result.stderr, /--state-dir/, command);
    }
  });

  test("--follow of a server (with the installer's certificate) whose event stream replays what it sent, or sends another attempt's: exit 2 at once, never followed forever", async () => {
    const node = await installer("never");
    const real = (await node.request("/v1/installer/status")).json;
    const { tlsCert, tlsKey } = stateLayout(node.stateDir);
    const [cert, key] = await Promise.all([readFile(tlsCert), readFile(tlsKey)]);
    const event = (seq: number, attempt: number) => `id: ${seq}\ndata: ${JSON.stringify({ seq, attempt, time: new Date().toISOString(), type: "step.log", step: "firstboot", level: "info", message: `line ${seq}` })}\n\n`;
    for (const [what, stream] of [["replays", event(1, 1) + event(2, 1)], ["another attempt's", event(1, 7)]] as const) {
      let streams = 0;
      const liar = createServer({ cert, key }, (req, res) => {
        if (req.url!.startsWith("/v1/installer/status")) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...real, phase: "installing", attempt: 1, step: "firstboot" }));
        streams += 1;
        res.writeHead(200, { "content-type": "text/event-stream" }).end(stream);
      });
      await new Promise<void>((resolve) => liar.listen(0, "127.0.0.1", resolve));
      lab.defer(() => liar.close());
      const run = await runCli(["status", "--follow", "--state-dir", node.stateDir, "--port", String((liar.address() as AddressInfo).port)]);
      assert.equal(run.code, 2, `${what}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /is it the installer\?/, what);
      assert.match(run.stdout, /^phase +installing: attempt 1, step firstboot, started \(no time given\)$/m, "a status without its start time says so");
      assert.ok(streams <= 2, `${what}: ${streams} streams`);
    }
  });
});

describe("status of a server whose answers no installer gives: malformed HTTP, over a cap, events of another shape", () => {
  const INSTALLING = { phase: "installing", version: "stratum-installer 1", profile: "single-node", hostname: "n1", url: "https://n1:9443", configValid: true, attempt: 1, step: "firstboot" };

  /** A state dir of the server's certificate and a code, and that server: its nth status a status (JSON) or raw bytes; its event stream raw bytes. */
  async function liar(statusOf: (asked: number) => object | string, eventBytes: string) {
    const stateDir = await tempDir();
    const { certPem, keyPem } = generateSelfSignedCert({ commonName: "liar", dnsNames: [], ipAddresses: ["127.0.0.1"] });
    const layout = stateLayout(stateDir);
    await Promise.all([writeFile(layout.installCode, `${generateInstallCode()}\n`, { mode: 0o600 }), writeFile(layout.tlsCert, certPem)]);
    let streams = 0;
    let statuses = 0;
    const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
      if (!req.url!.startsWith("/v1/installer/install/events")) {
        const status = statusOf((statuses += 1));
        return typeof status === "string" ? req.socket.end(status) : res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(status));
      }
      streams += 1;
      req.socket.end(eventBytes);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    lab.defer(() => {
      server.closeAllConnections();
      server.close();
    });
    return { stateDir, port: String((server.address() as AddressInfo).port), streams: () => streams, statuses: () => statuses };
  }

  test("status: exit 2 naming what was asked, the parser's code, and asking whether it is the installer; not that it did not answer", async () => {
    const { stateDir, port } = await liar(() => `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(maxHeaderSize)}\r\nContent-Length: 2\r\n\r\n{}`, "");
    const run = await runCli(["status", "--state-dir", stateDir, "--port", port]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stderr, `status: https://127.0.0.1:${port}/v1/installer/status answered with malformed HTTP (HPE_HEADER_OVERFLOW: Header overflow, a header section over ${maxHeaderSize / 1024} KiB): is it the installer?\n`);
  });

  test("--follow whose event stream is so answered (a broken chunked body): exit 2 at once saying so, not tried again for 30 s as an installer lost", async () => {
    const { stateDir, port, streams } = await liar(() => INSTALLING, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    const run = await runCli(["status", "--follow", "--state-dir", stateDir, "--port", port]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stderr, `status: https://127.0.0.1:${port}/v1/installer/install/events?attempt=1 answered with malformed HTTP (HPE_INVALID_CHUNK_SIZE: Invalid character in chunk size): is it the installer?\n`);
    assert.equal(streams(), 1);
  });

  test("--follow waiting for an attempt, its status then so answered (two Content-Lengths): exit 2 at once saying so, not tried again for 30 s", async () => {
    const { stateDir, port, statuses } = await liar((asked) => (asked === 1 ? { ...INSTALLING, phase: "configuring", attempt: 0, step: undefined } : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"), "");
    const run = await runCli(["status", "--follow", "--state-dir", stateDir, "--port", port]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stderr, `status: https://127.0.0.1:${port}/v1/installer/status answered with malformed HTTP (HPE_UNEXPECTED_CONTENT_LENGTH: Duplicate Content-Length): is it the installer?\n`);
    assert.equal(statuses(), 2);
  });

  const MIB = 1024 * 1024;
  /** A whole answer (its body read to the connection's close): `head` lines, then `body`. */
  const raw = (body: string, head = "Content-Type: application/json") => `HTTP/1.1 200 OK\r\n${head}\r\nConnection: close\r\n\r\n${body}`;
  const stream = (body: string) => raw(body, "Content-Type: text/event-stream");

  test("status of an answer over its cap (1 MiB): exit 2 saying it answered more than an installer does, not that it did not answer", async () => {
    const { stateDir, port } = await liar(() => raw(`{"phase":"${"x".repeat(MIB)}"}`), "");
    const run = await runCli(["status", "--state-dir", stateDir, "--port", port]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stderr, `status: https://127.0.0.1:${port}/v1/installer/status answered more than an installer does (the answer is over 1 MiB): is it the installer?\n`);
  });

  test("--follow waiting for an attempt, its status then over its cap: exit 2 at once saying so, not tried again for 30 s", async () => {
    const { stateDir, port, statuses } = await liar((asked) => (asked === 1 ? { ...INSTALLING, phase: "configuring", attempt: 0, step: undefined } : raw("x".repeat(MIB + 1))), "");
    const run = await runCli(["status", "--follow", "--state-dir", stateDir, "--port", port]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stderr, `status: https://127.0.0.1:${port}/v1/installer/status answered more than an installer does (the answer is over 1 MiB): is it the installer?\n`);
    assert.equal(statuses(), 2);
  });

  const EVENTS = "/v1/installer/install/events?attempt=1";
  for (const [what, body, said] of [
    ["an event of another shape", 'id: 1\ndata: {"seq":1,"attempt":1}\n\n', /^: event 1 of the stream is not of its schema \([a-z]+: [^)]+\): is it the installer\?$/],
    ["an event that is not JSON", "id: 1\ndata: <html>\n\n", /^: event 1 of the stream is not JSON: is it the installer\?$/],
    ["a line over 1 MiB", `data: ${"x".repeat(MIB)}\n\n`, /^ answered more than an installer does \(an event stream line is over 1048576 characters\): is it the installer\?$/],
  ] as const) {
    test(`--follow whose event stream sends ${what}: exit 2 at once saying so, as the wait for an attempt does, not tried again for 30 s as an installer lost`, async () => {
      const { stateDir, port, streams } = await liar(() => INSTALLING, stream(body));
      const run = await runCli(["status", "--follow", "--state-dir", stateDir, "--port", port]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      const prefix = `status: https://127.0.0.1:${port}${EVENTS}`;
      assert.ok(run.stderr.startsWith(prefix) && run.stderr.endsWith("\n") && run.stderr.split("\n").length === 2, run.stderr);
      assert.match(run.stderr.slice(prefix.length, -1), said);
      assert.equal(streams(), 1);
    });
  }
});

describe("support-bundle --summary", () => {
  test("--summary=FILE is --summary FILE; with another flag it says --summary takes none, not that --summary is unknown", async () => {
    const file = join(await tempDir(), "no such.tar.gz");
    const [spaced, joined] = await Promise.all([runCli(["support-bundle", "--summary", file]), runCli(["support-bundle", `--summary=${file}`])]);
    assert.equal(joined.code, spaced.code);
    assert.equal(joined.stderr, spaced.stderr);
    assert.match(joined.stderr, /cannot read .*no such\.tar\.gz as a support bundle/);
    const mixed = await runCli(["support-bundle", "--state-dir", "/tmp", "--summary", file]);
    assert.equal(mixed.code, 2);
    assert.doesNotMatch(mixed.stderr, /Unknown option/);
    assert.match(mixed.stderr, /^installer: support-bundle --summary takes one bundle FILE and no other flag/);
  });
});
