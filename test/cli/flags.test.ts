import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { helpTopic, noArguments, parseFlags, SERVE_FLAGS, settingsFrom, STATUS_FLAGS, statusUrl, unknownCommand, environmentNotices, UsageError } from "../../cli/flags.ts";

test("status's URL: --url, else the port (--port, the last start's, 9443) at the last start's address when it is this machine's, else 127.0.0.1", () => {
  const own = ["127.0.0.1", "::1", "10.0.0.5", "fd00::5"];
  const rows: Array<[Parameters<typeof statusUrl>[0], Parameters<typeof statusUrl>[1], string]> = [
    [{}, {}, "https://127.0.0.1:9443/"],
    [{}, { listenHost: "0.0.0.0", port: 19443 }, "https://127.0.0.1:19443/"],
    [{}, { listenHost: "::", port: 19443 }, "https://[::1]:19443/"],
    [{}, { listenHost: "10.0.0.5", port: 9443 }, "https://10.0.0.5:9443/"],
    [{}, { listenHost: "fd00::5", port: 9443 }, "https://[fd00::5]:9443/"],
    [{}, { listenHost: "localhost", port: 9443 }, "https://localhost:9443/"],
    // A state dir copied from another node names that node's address: not followed.
    [{}, { listenHost: "10.9.9.9", port: 9443 }, "https://127.0.0.1:9443/"],
    [{}, { listenHost: "node-07.lab", port: 9443 }, "https://127.0.0.1:9443/"],
    [{ port: "9555" }, { listenHost: "10.0.0.5", port: 19443 }, "https://10.0.0.5:9555/"],
    [{ port: "9555" }, {}, "https://127.0.0.1:9555/"],
    [{ url: "https://node-07.lab:9443" }, { listenHost: "10.0.0.5", port: 19443 }, "https://node-07.lab:9443/"],
  ];
  for (const [values, ranWith, url] of rows) assert.equal(statusUrl(values, ranWith, own).href, url, JSON.stringify([values, ranWith]));
  for (const port of ["0", "65536", "x", ""]) assert.throws(() => statusUrl({ port }), UsageError, port);
});

test("status's --port and --url together are refused: the URL names its own port, and the other was dropped unseen", () => {
  assert.throws(() => statusUrl({ port: "9555", url: "https://10.0.0.5:9443" }), { name: "UsageError", message: /^--port and --url .*give one/ });
  // One from the command line, the other from the environment (installer.env): the command line's wins.
  assert.equal(statusUrl({ port: "9555", url: "https://10.0.0.5:9443" }, {}, [], new Set(["url"])).href, "https://10.0.0.5:9443/");
  assert.equal(statusUrl({ port: "9555", url: "https://10.0.0.5:9443" }, {}, [], new Set(["port"])).href, "https://127.0.0.1:9555/");
});

test("an unknown flag is refused with the flag meant, when one is close; an unknown command with the command meant", () => {
  const refused = (args: string[], flags: Parameters<typeof parseFlags>[1], extra?: Parameters<typeof parseFlags>[3]) => {
    try {
      parseFlags(args, flags, {}, extra);
    } catch (err) {
      assert.ok(err instanceof UsageError);
      return err.message;
    }
    assert.fail(`${args.join(" ")} was taken`);
  };
  assert.equal(refused(["--state-dri", "/x"], STATUS_FLAGS), "Unknown option '--state-dri'. Did you mean --state-dir?");
  assert.equal(refused(["--state-dri=/x"], STATUS_FLAGS), "Unknown option '--state-dri'. Did you mean --state-dir?");
  assert.equal(refused(["--folow"], STATUS_FLAGS, { follow: { type: "boolean" } }), "Unknown option '--folow'. Did you mean --follow?");
  assert.equal(refused(["--dryrun"], {}, { "dry-run": { type: "boolean" } }), "Unknown option '--dryrun'. Did you mean --dry-run?");
  assert.equal(refused(["--lisen", "x"], SERVE_FLAGS), "Unknown option '--lisen'. Did you mean --listen?");
  // Nothing close: no guess.
  assert.equal(refused(["--bogus"], SERVE_FLAGS), "Unknown option '--bogus'.");
  assert.equal(refused(["-x"], SERVE_FLAGS), "Unknown option '-x'.");

  const commands = ["serve", "validate", "status", "support-bundle"];
  assert.equal(unknownCommand("stauts", commands).message, 'unknown command "stauts"; did you mean "status"? commands: serve, validate, status, support-bundle');
  assert.equal(unknownCommand("supportbundle", commands).message, 'unknown command "supportbundle"; did you mean "support-bundle"? commands: serve, validate, status, support-bundle');
  assert.equal(unknownCommand("frobnicate", commands).message, 'unknown command "frobnicate"; commands: serve, validate, status, support-bundle');
});

test("a flag typed with an empty value (--state-dir \"$DIR\" with DIR unset) is refused naming it, not taken as a path \"\" or a URL \"\"", () => {
  const rows: Array<[string[], Record<string, { help: string }>]> = [[["--state-dir", ""], STATUS_FLAGS], [["--state-dir="], STATUS_FLAGS], [["--listen", "", "--state-dir", "/x"], SERVE_FLAGS]];
  for (const [args, flags] of rows) {
    const name = args[0]!.replace(/=$/, "");
    assert.throws(() => parseFlags(args, flags, {}), { name: "UsageError", message: `${name} is empty (an unset variable, as in ${name} "$VAR"?): give it a value, or leave it out` }, args.join(" "));
  }
});

test("a value from the environment (installer.env) that begins with ~ is refused as a typed one is, naming the variable and the file; an empty one is taken as not set (a line `STRATUM_TLS_CERT=` kept the service up before), and said", () => {
  const from = (variable: string) => `${variable} (from the environment; under systemd /etc/stratum/installer.env)`;
  const rows: Array<[Record<string, string>, Record<string, { help: string }>, string]> = [
    [{ STRATUM_STATE_DIR: "~/state" }, SERVE_FLAGS, `${from("STRATUM_STATE_DIR")} ~/state: nothing expanded this ~ (systemd's EnvironmentFile never does, nor a shell in quotes); write the whole path`],
    [{ STRATUM_PAYLOAD: "~root/payload" }, SERVE_FLAGS, `${from("STRATUM_PAYLOAD")} ~root/payload: nothing expanded this ~ (systemd's EnvironmentFile never does, nor a shell in quotes); write the whole path`],
  ];
  for (const [env, flags, message] of rows) assert.throws(() => parseFlags([], flags, env), { name: "UsageError", message }, JSON.stringify(env));
  // Empty: the flag's default, or none (a self-signed certificate, host facts from /sys), as with no line at all.
  assert.equal(parseFlags([], STATUS_FLAGS, { STRATUM_STATE_DIR: "" }).values["state-dir"], STATUS_FLAGS["state-dir"].default);
  assert.equal(parseFlags([], SERVE_FLAGS, { STRATUM_TLS_CERT: "", STRATUM_HOST_FACTS: "" }).values["tls-cert"], undefined);
  assert.equal(parseFlags([], SERVE_FLAGS, { STRATUM_HOST_FACTS: "" }).values["host-facts"], undefined);
  // …and said among the start's notices, as a variable no flag reads is.
  assert.deepEqual(environmentNotices(SERVE_FLAGS, { STRATUM_TLS_CERT: "" }), ["STRATUM_TLS_CERT is empty: taken as not set; give it a value, or remove the line"]);
  // A typed value is the one used, and the one named: the environment's is not read.
  assert.equal(parseFlags(["--state-dir", "/srv/state"], STATUS_FLAGS, { STRATUM_STATE_DIR: "~/x" }).values["state-dir"], "/srv/state");
  assert.throws(() => parseFlags(["--state-dir="], STATUS_FLAGS, { STRATUM_STATE_DIR: "~/x" }), { message: /^--state-dir is empty/ });
  assert.throws(() => parseFlags(["--payload="], SERVE_FLAGS, { STRATUM_STATE_DIR: "~/x" }), { message: /^--payload is empty/ }, "the typed one first");
  // A variable of a flag this command does not take is not its to refuse; a ~ inside a value is a name, as typed.
  assert.equal(parseFlags([], STATUS_FLAGS, { STRATUM_PAYLOAD: "~/x" }).values["state-dir"], SERVE_FLAGS["state-dir"].default);
  assert.equal(parseFlags([], STATUS_FLAGS, { STRATUM_STATE_DIR: "/srv/~state" }).values["state-dir"], "/srv/~state");
});

test("serve refuses a --readiness-url no readiness poll can ask (htps://, ftp://) at its start, not after firstboot ran", () => {
  for (const url of ["htps://127.0.0.1:8443/v1/readiness", "ftp://127.0.0.1/v1/readiness", "127.0.0.1:8443/v1/readiness"]) {
    const { values } = parseFlags(["--readiness-url", url], SERVE_FLAGS, {});
    assert.throws(() => settingsFrom(values), { name: "UsageError", message: `--readiness-url must be an https URL (the cloud's readiness endpoint), got "${url}"` }, url);
  }
  for (const url of ["https://127.0.0.1:8443/v1/readiness", "http://127.0.0.1:8080/v1/readiness"]) {
    assert.equal(settingsFrom(parseFlags(["--readiness-url", url], SERVE_FLAGS, {}).values).readinessUrl, url);
  }
});

test("a flag's value that begins with ~ (--state-dir=~/x: the shell expands no ~ after =, nor in quotes) is refused, not made into a folder named ~ in the working directory", () => {
  for (const args of [["--state-dir=~/state"], ["--state-dir", "~/state"], ["--state-dir=~root/state"]]) {
    const value = args.length === 1 ? args[0]!.slice("--state-dir=".length) : args[1]!;
    assert.throws(() => parseFlags(args, STATUS_FLAGS, {}), { name: "UsageError", message: `--state-dir ${value}: the shell left this ~ as it is (it expands ~ only at the start of a word: not after --state-dir=, nor in quotes); write --state-dir ${value} with a space and no quotes, or the whole path` }, args.join(" "));
  }
  assert.equal(parseFlags(["--state-dir", "/srv/~state"], STATUS_FLAGS, {}).values["state-dir"], "/srv/~state");
});

test("noArguments: none is fine; a stray word is a UsageError, asking after --state-dir for a directory alone, whatever stat says of the rest", async () => {
  const folder = await mkdtemp(join(tmpdir(), "stratum-flags-"));
  const file = join(folder, "file");
  await writeFile(file, "");
  const refusal = (positionals: string[], takesStateDir = true) => {
    try {
      noArguments("status", positionals, takesStateDir);
      return undefined;
    } catch (err) {
      assert.ok(err instanceof UsageError, String(err));
      return err.message;
    }
  };
  assert.equal(refusal([]), undefined);
  assert.equal(refusal([folder]), `status takes no arguments, got "${folder}"; did you mean --state-dir ${folder}?`);
  assert.equal(refusal([folder], false), `status takes no arguments, got "${folder}"`);
  assert.equal(refusal([folder, folder]), `status takes no arguments, got "${folder} ${folder}"`);
  // Missing, a file, a path under a file (ENOTDIR), a name too long (ENAMETOOLONG): no question, and no stat error.
  for (const word of [join(folder, "nope"), file, join(file, "x"), "x".repeat(5000)]) assert.equal(refusal([word]), `status takes no arguments, got "${word}"`);
});

test("a STRATUM_ variable no flag reads is warned of, with the variable it is likely to be, as nearest() finds flag names (case and separators do not count)", () => {
  const warned = (name: string) => environmentNotices(SERVE_FLAGS, { [name]: "x", PATH: "/usr/bin", HOME: "/root" });
  const rows: Array<[string, string | undefined]> = [
    ["STRATUM_LSITEN", "STRATUM_LISTEN"],
    ["STRATUM_STATEDIR", "STRATUM_STATE_DIR"],
    ["STRATUM_TLS_CRT", "STRATUM_TLS_CERT"],
    ["STRATUM_READINESS_TIMOUT", "STRATUM_READINESS_TIMEOUT"],
    // Written in lower case or with other separators in installer.env: still the flag's variable.
    ["STRATUM_state_dir", "STRATUM_STATE_DIR"],
    ["STRATUM_Listen", "STRATUM_LISTEN"],
    ["STRATUM_READINESS-URL", "STRATUM_READINESS_URL"],
    ["STRATUM_WHATEVER", undefined],
    ["STRATUM_", undefined],
  ];
  for (const [name, meant] of rows) {
    const hint = meant ? `did you mean ${meant}?` : "serve --help names each flag's variable";
    assert.deepEqual(warned(name), [`${name} is set, but no flag reads it: ${hint}`], name);
  }
  // Variables flags read (STRATUM_FIRSTBOOT is --firstboot's), one not STRATUM_'s, and the mark on firstboot's processes: no warning.
  assert.deepEqual(environmentNotices(SERVE_FLAGS, { STRATUM_LISTEN: "0.0.0.0:9443", STRATUM_FIRSTBOOT: "/opt/fb", LISTEN: "x", STRATUM_FIRSTBOOT_MARK: "0123456789abcdef/1" }), []);
});

test("a readiness timeout or interval past what a timer holds (≈ 24.8 days) is refused at the start: Node would fire such a timer at once, polling the cloud in a tight loop", () => {
  for (const flag of ["--readiness-timeout", "--readiness-interval"]) {
    for (const value of ["2147484", "99999999999"]) {
      assert.throws(() => settingsFrom(parseFlags([flag, value], SERVE_FLAGS, {}).values), { name: "UsageError", message: new RegExp(`^${flag} must be a number of seconds from .* to 2147483 \\(24 days\\), got "${value}"$`) }, `${flag} ${value}`);
    }
    assert.equal(settingsFrom(parseFlags([flag, "2147483"], SERVE_FLAGS, {}).values)[flag === "--readiness-timeout" ? "readinessTimeoutSeconds" : "readinessIntervalSeconds"], 2147483);
  }
});

test("helpTopic: COMMAND --help and help COMMAND name that command, help itself included (help help, help --help); help and --help name none; help of no command is refused", () => {
  const rows: Array<[string[], string | undefined]> = [
    [["status", "--help"], "status"],
    [["help", "status"], "status"],
    [["help", "help"], "help"],
    [["help", "--help"], "help"],
    [["help", "-h"], "help"],
    [["help"], undefined],
    [["--help"], undefined],
    [["-h"], undefined],
  ];
  for (const [argv, topic] of rows) assert.equal(helpTopic(argv), topic, argv.join(" "));
  assert.throws(() => helpTopic(["help", "staus"]), { name: "UsageError", message: /^unknown command "staus"; did you mean "status"\? commands: serve, .*, help$/ });
});

test("serve's defaults are SPEC §2's table, and each flag is also its STRATUM_ variable (the command line winning)", () => {
  assert.deepEqual(settingsFrom(parseFlags([], SERVE_FLAGS, {}).values), {
    listenHost: "0.0.0.0",
    listenPort: 9443,
    stateDir: "/var/lib/stratum/installer",
    payload: "/var/lib/stratum/payload",
    handoff: "/var/lib/stratum/handoff/node.yaml",
    installRecord: "/var/lib/stratum/install-record.json",
    nodeYaml: "/etc/stratum/node.yaml",
    firstboot: "/usr/lib/stratum/firstboot",
    readinessUrl: "https://127.0.0.1:8443/v1/readiness",
    readinessTimeoutSeconds: 1800,
    readinessIntervalSeconds: 3,
    hostFacts: undefined,
    tlsCert: undefined,
    tlsKey: undefined,
  });
  const env = {
    STRATUM_LISTEN: "127.0.0.2:9444",
    STRATUM_STATE_DIR: "/srv/state",
    STRATUM_PAYLOAD: "/srv/payload",
    STRATUM_HANDOFF: "/srv/handoff.yaml",
    STRATUM_INSTALL_RECORD: "/srv/record.json",
    STRATUM_NODE_YAML: "/srv/node.yaml",
    STRATUM_FIRSTBOOT: "/srv/firstboot",
    STRATUM_READINESS_URL: "https://10.0.0.1:8443/v1/readiness",
    STRATUM_READINESS_TIMEOUT: "60",
    STRATUM_READINESS_INTERVAL: "1",
    STRATUM_HOST_FACTS: "/srv/facts.json",
    STRATUM_TLS_CERT: "/srv/tls.crt",
    STRATUM_TLS_KEY: "/srv/tls.key",
  };
  assert.deepEqual(settingsFrom(parseFlags([], SERVE_FLAGS, env).values), {
    listenHost: "127.0.0.2",
    listenPort: 9444,
    stateDir: "/srv/state",
    payload: "/srv/payload",
    handoff: "/srv/handoff.yaml",
    installRecord: "/srv/record.json",
    nodeYaml: "/srv/node.yaml",
    firstboot: "/srv/firstboot",
    readinessUrl: "https://10.0.0.1:8443/v1/readiness",
    readinessTimeoutSeconds: 60,
    readinessIntervalSeconds: 1,
    hostFacts: "/srv/facts.json",
    tlsCert: "/srv/tls.crt",
    tlsKey: "/srv/tls.key",
  });
  assert.equal(parseFlags(["--readiness-timeout", "90"], SERVE_FLAGS, env).values["readiness-timeout"], "90");
});
