import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Settings } from "../core/common/settings.ts";
import { nearest } from "../core/config/messages.ts";
import { FIRSTBOOT_MARK_VARIABLE } from "../core/process/mark.ts";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

interface FlagSpec {
  default?: string;
  help: string;
}

/** SPEC §2: every serve flag, each also an env var STRATUM_<FLAG>. */
export const SERVE_FLAGS = {
  listen: { default: "0.0.0.0:9443", help: "HTTPS address host:port ([::]:9443 for IPv6; port 0 picks a free one)" },
  "state-dir": { default: "/var/lib/stratum/installer", help: "lowdb store, TLS key/cert, install code, event logs" },
  payload: { default: "/var/lib/stratum/payload", help: "offline payload folder" },
  handoff: { default: "/var/lib/stratum/handoff/node.yaml", help: "node.yaml left by stage 1 for an unattended install" },
  "install-record": { default: "/var/lib/stratum/install-record.json", help: "stage 1's install record" },
  "node-yaml": { default: "/etc/stratum/node.yaml", help: "where the install writes node.yaml" },
  firstboot: { default: "/usr/lib/stratum/firstboot", help: "executable run by the firstboot step" },
  "readiness-url": { default: "https://127.0.0.1:8443/v1/readiness", help: "the cloud's readiness endpoint" },
  "readiness-timeout": { default: "1800", help: "seconds to wait for READY" },
  "readiness-interval": { default: "3", help: "seconds between readiness polls" },
  "host-facts": { help: "JSON file overriding the host inventory read from /sys and /proc" },
  "tls-cert": { help: "operator-provided certificate (PEM); default: self-signed in the state dir" },
  "tls-key": { help: "operator-provided private key (PEM), with --tls-cert" },
} as const satisfies Record<string, FlagSpec>;

type ServeFlag = keyof typeof SERVE_FLAGS;

export const VALIDATE_FLAGS = {
  "host-facts": SERVE_FLAGS["host-facts"],
  payload: SERVE_FLAGS.payload,
  format: { default: "text", help: "text (FILE:LINE:COL: error: field: message), json, or github (workflow commands that annotate the file)" },
} as const satisfies Record<string, FlagSpec>;

export const STATUS_FLAGS = {
  "state-dir": SERVE_FLAGS["state-dir"],
  port: { help: "the port the installer listens on (default: the one its last start listened on, as the state dir's last-start.json says; else 9443)" },
  url: { help: "the installer's URL (default: https://ADDRESS:PORT, ADDRESS the one its last start listened on when it is this machine's and not all of them, else 127.0.0.1)" },
  "tls-cert": { help: "the certificate an installer started with --tls-cert serves (default: the state dir's tls.crt)" },
} as const satisfies Record<string, FlagSpec>;

export const SUPPORT_BUNDLE_FLAGS = {
  "state-dir": SERVE_FLAGS["state-dir"],
  output: { help: "where to write the bundle (-o): a file, a folder to put it in under its own name (DIR/: made if it is not there), or - for stdout (default: the working directory)" },
  payload: { help: `offline payload folder (default: the one the service last started with, as the state dir's last-start.json says; else ${SERVE_FLAGS.payload.default})` },
  "host-facts": { help: "JSON file of the host inventory (default: the one the service last started with, if any; else read from /sys and /proc)" },
  "tls-key": { help: "the private key the installer serves when started with --tls-key, so that the bundle never holds it (default: the one the service last started with, if any)" },
} as const satisfies Record<string, FlagSpec>;

/** A command word no command has: the one meant when it is a likely typo, and every command. */
export function unknownCommand(word: string, commands: readonly string[]): UsageError {
  const near = nearest(word, commands, (name) => name);
  return new UsageError(`unknown command "${word}"; ${near ? `did you mean "${near}"? ` : ""}commands: ${commands.join(", ")}`);
}

/** A value of a closed set, or a usage error naming the set. */
export function oneOf<const T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}, got "${value}"`);
}

/**
 * The installer's URL: --url, else on the port (--port, else the one its last start listened on, else 9443) at the
 * address its last start listened on when that is one of this machine's (`ownAddresses`; all of them: the
 * loopback), else 127.0.0.1. A state dir copied from another node names that node's address: never followed.
 */
export function statusUrl(
  given: Partial<Record<keyof typeof STATUS_FLAGS, string>>,
  ranWith: { listenHost?: string; port?: number } = {},
  ownAddresses: readonly string[] = [],
  onCommandLine: ReadonlySet<string> = new Set(),
): URL {
  let values = given;
  if (values.port !== undefined && values.url !== undefined) {
    // One typed, the other from the environment (STRATUM_PORT in installer.env): the one typed.
    if (onCommandLine.has("url") && !onCommandLine.has("port")) values = { ...values, port: undefined };
    else if (onCommandLine.has("port") && !onCommandLine.has("url")) values = { ...values, url: undefined };
    else throw new UsageError(`--port and --url both say where the installer is (the URL names its port): give one`);
  }
  const port = values.port === undefined ? (ranWith.port ?? 9443) : Number(values.port);
  if (values.port !== undefined && (!/^\d{1,5}$/.test(values.port) || port < 1 || port > 65535)) throw new UsageError(`--port must be a port number, got "${values.port}"`);
  const listened = ranWith.listenHost;
  const ours = listened !== undefined && (listened === "localhost" || ownAddresses.includes(listened));
  const host = listened === "::" ? "[::1]" : !ours || listened === "0.0.0.0" ? "127.0.0.1" : listened.includes(":") ? `[${listened}]` : listened;
  const text = values.url ?? `https://${host}:${port}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url must be a URL, got "${text}"`);
  }
  if (url.protocol !== "https:") throw new UsageError(`--url must be an https URL, got "${text}"`);
  return url;
}

function envName(flag: string): string {
  return `STRATUM_${flag.toUpperCase().replaceAll("-", "_")}`;
}

/**
 * A usage error about a flag the environment gave (STRATUM_LISTEN from /etc/stratum/installer.env, with no --listen
 * on the command line) names the variable, not a flag the operator never typed.
 */
export function fromEnvironment(err: UsageError, notOnCommandLine: Iterable<string>, env: NodeJS.ProcessEnv): UsageError {
  for (const flag of notOnCommandLine) {
    if (!env[envName(flag)] || !err.message.startsWith(`--${flag} `)) continue;
    return new UsageError(`${variableNamed(flag)} ${err.message.slice(flag.length + 3)}`);
  }
  return err;
}

/** A flag's variable as a message names it: where it comes from, for the operator who never typed the flag. */
const variableNamed = (flag: string) => `${envName(flag)} (from the environment; under systemd /etc/stratum/installer.env)`;

/**
 * A value no flag takes, typed or from the environment (`fromEnvironment`): empty when typed (a variable that was not
 * set: "" is no path, port or URL; the environment's empty one is taken as not set, `environmentNotices` says so) or
 * beginning with ~, which nothing expanded (taken as it is, a folder named ~ here).
 */
function unusableValue(flag: string, value: string, fromEnvironment: boolean): UsageError | undefined {
  if (value !== "" && !value.startsWith("~")) return undefined;
  if (fromEnvironment) return new UsageError(`${variableNamed(flag)} ${value}: nothing expanded this ~ (systemd's EnvironmentFile never does, nor a shell in quotes); write the whole path`);
  return new UsageError(
    value === ""
      ? `--${flag} is empty (an unset variable, as in --${flag} "$VAR"?): give it a value, or leave it out`
      : // --state-dir=~/x: no shell expands that ~ (nor a quoted one).
        `--${flag} ${value}: the shell left this ~ as it is (it expands ~ only at the start of a word: not after --${flag}=, nor in quotes); write --${flag} ${value} with a space and no quotes, or the whole path`,
  );
}

/**
 * What the start says of the environment: each STRATUM_ variable set that no flag reads (a typo in installer.env goes
 * unseen otherwise), with the name it is likely to be, and each of a flag that is empty, taken as not set.
 */
export function environmentNotices(flags: Record<string, FlagSpec>, env: NodeJS.ProcessEnv): string[] {
  const known = Object.keys(flags).map(envName);
  // The mark on firstboot's processes (an installer started from one carries it) is no flag's, and no typo.
  return Object.keys(env)
    .filter((name) => name.startsWith("STRATUM_") && name !== FIRSTBOOT_MARK_VARIABLE && (!known.includes(name) || env[name] === ""))
    .map((name) => {
      if (known.includes(name)) return `${name} is empty: taken as not set; give it a value, or remove the line`;
      // The flag's name is compared, not the prefix every variable shares (which would make any short name close).
      const near = nearest(name.slice("STRATUM_".length), Object.keys(flags), (flag) => flag);
      return `${name} is set, but no flag reads it: ${near ? `did you mean ${envName(near)}?` : "serve --help names each flag's variable"}`;
    });
}

export function parseFlags<const F extends string>(
  args: string[],
  flags: Record<F, FlagSpec>,
  env: NodeJS.ProcessEnv,
  extra: Record<string, { type: "boolean" }> = {},
): { values: Partial<Record<F, string>>; booleans: Record<string, boolean>; positionals: string[] } {
  let parsed;
  const options = {
    ...Object.fromEntries(Object.keys(flags).map((name) => [name, { type: "string" as const }])),
    ...extra,
  };
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (err) {
    const message = (err as Error).message.replace(/\. To specify a positional argument.*$/s, ".");
    // A typo of a flag this command takes: the flag meant (Node's own message names none).
    const unknown = (err as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /^Unknown option '--([^']+)'/.exec(message)?.[1] : undefined;
    const near = unknown === undefined ? undefined : nearest(unknown, Object.keys(options), (name) => name);
    throw new UsageError(near ? `${message} Did you mean --${near}?` : message);
  }
  const typed = parsed.values as Record<string, string | boolean | undefined>;
  // Each flag's value once, as the command line gave it first (a typed value wins over the environment's).
  const given = (Object.keys(flags) as F[]).flatMap((name) => {
    // installer.env's `STRATUM_TLS_CERT=`: as if the line were not there (`environmentNotices` says it).
    const value = typed[name] ?? (env[envName(name)] || undefined);
    return typeof value === "string" ? [{ name, value, fromEnvironment: typed[name] === undefined }] : [];
  });
  // Every typed value first: a typo on the command line is the one to name, not the environment's.
  for (const { name, value, fromEnvironment } of [...given.filter((g) => !g.fromEnvironment), ...given.filter((g) => g.fromEnvironment)]) {
    const refused = unusableValue(name, value, fromEnvironment);
    if (refused) throw refused;
  }
  const values: Partial<Record<F, string>> = {};
  for (const name of Object.keys(flags) as F[]) {
    const value = given.find((g) => g.name === name)?.value ?? flags[name].default;
    if (typeof value === "string") values[name] = value;
  }
  const booleans = Object.fromEntries(Object.keys(extra).map((name) => [name, Boolean((parsed.values as Record<string, unknown>)[name])]));
  return { values, booleans, positionals: parsed.positionals };
}

/** The longest wait a Node timer holds (2^31 − 1 ms): past it, Node fires the timer at once (a poll in a tight loop). */
const MAX_TIMER_SECONDS = 2_147_483;

function seconds(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n) || n < min || n > MAX_TIMER_SECONDS) {
    throw new UsageError(`--${flag} must be a number of seconds from ${min} to ${MAX_TIMER_SECONDS} (24 days), got "${value}"`);
  }
  return n;
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new UsageError(`--listen must be host:port (e.g. 0.0.0.0:9443 or [::]:9443), got "${value}"`);
  }
  return { host: (match[1] ?? match[2])!, port };
}

export function settingsFrom(values: Partial<Record<ServeFlag, string>>): Settings {
  const v = values as Record<ServeFlag, string> & Partial<Record<ServeFlag, string>>;
  const listen = parseListen(v.listen);
  if (Boolean(v["tls-cert"]) !== Boolean(v["tls-key"])) {
    throw new UsageError("--tls-cert and --tls-key go together: give both, or neither for a self-signed certificate");
  }
  // A scheme the readiness poll cannot ask (a typo, htps://; 127.0.0.1:8443/… reads as the scheme "127.0.0.1:") would
  // fail the install only at its readiness step, after firstboot ran. (http: the in-process tests' loopback cloud.)
  const readiness = URL.canParse(v["readiness-url"]) ? new URL(v["readiness-url"]).protocol : undefined;
  if (readiness !== "https:" && readiness !== "http:") {
    throw new UsageError(`--readiness-url must be an https URL (the cloud's readiness endpoint), got "${v["readiness-url"]}"`);
  }
  return {
    listenHost: listen.host,
    listenPort: listen.port,
    stateDir: v["state-dir"],
    payload: v.payload,
    handoff: v.handoff,
    installRecord: v["install-record"],
    nodeYaml: v["node-yaml"],
    firstboot: v.firstboot,
    readinessUrl: v["readiness-url"],
    readinessTimeoutSeconds: seconds("readiness-timeout", v["readiness-timeout"], 1),
    readinessIntervalSeconds: seconds("readiness-interval", v["readiness-interval"], 0.05),
    hostFacts: v["host-facts"],
    tlsCert: v["tls-cert"],
    tlsKey: v["tls-key"],
  };
}

function flagLines(flags: Record<string, FlagSpec>): string[] {
  return Object.entries(flags).map(([name, spec]) => {
    const fallback = spec.default !== undefined ? ` (default ${spec.default})` : "";
    return `  --${name.padEnd(20)} ${spec.help}${fallback}\n  ${"".padEnd(22)} env ${envName(name)}`;
  });
}

/** Every command, in the order `--help` shows them. */
export const COMMANDS = ["serve", "validate", "status", "openapi", "schema", "code", "fleet", "support-bundle", "prepare-image", "help"] as const;

/** Each command's usage lines and the flags it takes (its own section of `--help`, and `COMMAND --help` alone). */
const commandHelp = (): Record<(typeof COMMANDS)[number], { lines: string[]; flags?: { title: string; lines: string[] } }> => ({
  serve: {
    lines: ["  node installer.js [serve] [flags]        serve the HTTPS installer API"],
    flags: { title: "Serve flags:", lines: flagLines(SERVE_FLAGS) },
  },
  validate: {
    lines: [
      "  node installer.js validate FILE|- [--format text|json|github] [--host-facts F] [--payload DIR]",
      "                                           check a node.yaml offline (- reads stdin, shown as <stdin>);",
      "                                           exit 0 valid, 1 invalid, 2 unreadable",
    ],
    flags: { title: "Validate flags:", lines: flagLines(VALIDATE_FLAGS) },
  },
  status: {
    lines: [
      "  node installer.js status [--follow] [--state-dir D] [--port P | --url U] [--tls-cert F]",
      "                                           the local installer's phase; --follow prints the running",
      "                                           attempt's events until it finishes (waiting for one to start",
      "                                           while configuring); exit 0 done or under way, 1 failed,",
      "                                           2 usage or unreachable",
    ],
    flags: {
      title: "Status flags (it reads the install code and the TLS certificate in the state dir, and sends the code\nonly to a server presenting that certificate):",
      lines: [...flagLines(STATUS_FLAGS), "  --follow               follow the install until its attempt finishes"],
    },
  },
  openapi: { lines: ["  node installer.js openapi                print the OpenAPI 3.1 document"] },
  schema: { lines: ["  node installer.js schema                 print the node.yaml JSON Schema"] },
  code: {
    lines: ["  node installer.js code [--state-dir D]   print the install code"],
    flags: { title: "Code flags:", lines: flagLines({ "state-dir": SERVE_FLAGS["state-dir"] }) },
  },
  fleet: {
    lines: [
      "  node installer.js fleet PLAN.yaml [--dry-run] [--parallel N] [--rechecks N] [--state FILE] [--json]",
      "                                   [--support-bundle DIR]",
      "                                           install a whole cluster from one plan (fleet --help, fleet --example)",
    ],
  },
  "support-bundle": {
    lines: [
      "  node installer.js support-bundle [--state-dir D] [-o FILE|-] [--payload DIR] [--host-facts F] [--tls-key F]",
      "                                           one .tar.gz of this node's story, no secret in it; from the state",
      "                                           dir alone, whether the service runs, stopped or crashed",
      "  node installer.js support-bundle --summary FILE",
      "                                           a short account of a bundle: node, phase, attempts, where it failed",
    ],
    flags: {
      title: "Support bundle flags (it reads the state dir, never writes it and never takes its lock):",
      lines: [...flagLines(SUPPORT_BUNDLE_FLAGS), "  --summary FILE         a short account of the bundle FILE instead of making one"],
    },
  },
  "prepare-image": {
    lines: [
      "  node installer.js prepare-image          for an image whose state dir starts empty at every boot: write",
      "                                           V8's code cache of a first start beside installer.js (run with",
      "                                           the Node and flags the service runs with), so every start uses it",
    ],
  },
  help: {
    lines: [
      "  node installer.js help | --help | -h     this help",
      "  node installer.js help COMMAND | COMMAND --help",
      "                                           that command's part alone",
    ],
  },
});

/**
 * The command whose part of `--help` a command line asks for (`validate --help`, `help validate`; `help help` and
 * `help --help`, help's own), or undefined for all of it (`help`, `--help`); `help` of no command is a usage error.
 */
export function helpTopic(argv: readonly string[]): string | undefined {
  if (argv[0] !== "help") return argv[0] !== undefined && !argv[0].startsWith("-") ? argv[0] : undefined;
  const topic = argv[1];
  if (topic === "--help" || topic === "-h") return "help";
  if (topic === undefined || topic.startsWith("-")) return undefined;
  if (!(COMMANDS as readonly string[]).includes(topic)) throw unknownCommand(topic, COMMANDS);
  return topic;
}

/** `--help`: every command and its flags; with a command (`validate --help`), that command's part alone. */
export function usage(version: string, command?: string): string {
  const help = commandHelp();
  const one = command === undefined ? undefined : help[command as (typeof COMMANDS)[number]];
  const shown = one ? [one] : Object.values(help);
  const more = one ? ["", "(node installer.js --help for every command)"] : ["  node installer.js --version | -V"];
  const flagSections = shown.flatMap((c) => (c.flags ? ["", c.flags.title, ...c.flags.lines] : []));
  return [`Stratum installer ${version}`, "", "Usage:", ...shown.flatMap((c) => c.lines), ...more, ...flagSections, ""].join("\n");
}

/**
 * A command that takes no arguments refuses a stray word (a typo, not something to ignore). One that reads a state
 * dir asks whether a directory given alone (`status /var/lib/stratum/installer`) was meant as its --state-dir.
 */
export function noArguments(command: string, positionals: readonly string[], takesStateDir = false): void {
  if (positionals.length === 0) return;
  const only = positionals.length === 1 ? positionals[0]! : undefined;
  const dir = takesStateDir && only !== undefined && isDirectory(only);
  throw new UsageError(`${command} takes no arguments, got "${positionals.join(" ")}"${dir ? `; did you mean --state-dir ${only}?` : ""}`);
}

/** Whether `path` is a directory now; anything stat refuses (missing, under a file, too long) is not. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
