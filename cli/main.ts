import { networkInterfaces } from "node:os";
import type { CodeCache } from "./fast-start.ts";
import type { Exit } from "./commands.ts";
import { printableLines } from "../core/common/printable.ts";
import { whenStdoutGone } from "./epipe.ts";
import { SERVE_FLAGS, STATUS_FLAGS, SUPPORT_BUNDLE_FLAGS, UsageError, VALIDATE_FLAGS, fromEnvironment, COMMANDS, noArguments, oneOf, parseFlags, settingsFrom, statusUrl, unknownCommand, environmentNotices } from "./flags.ts";
import { settle } from "./outcome.ts";
import { FORMATS } from "./problem-format.ts";
import { VERSION } from "./version.ts";

let serving = false;

/** A command with no flags of its own and no arguments: a stray word is a typo, not something to ignore. */
const takesNothing = (command: string, rest: string[]): void => noArguments(command, parseFlags(rest, {}, process.env).positionals);

/** Whether the command line (`rest`) gave this flag: one not typed may have come from its STRATUM_ variable. */
const typedIn = (rest: string[], flag: string): boolean => rest.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`));

/** `check()`, its usage error naming the STRATUM_ variable when the flag came from the environment, not from `rest`. */
function namingTheVariable<T>(rest: string[], flags: Record<string, unknown>, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const notTyped = Object.keys(flags).filter((flag) => !typedIn(rest, flag));
    throw fromEnvironment(err, notTyped, process.env);
  }
}

const printJson = (value: unknown): Exit => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return 0;
};

/** Each command loads only its own modules: `validate` needs no HTTP server. */
async function main(argv: string[], codeCache: CodeCache | undefined): Promise<Exit | number | "serving"> {
  const first = argv[0];
  const named = first !== undefined && !first.startsWith("-");
  const rest = named ? argv.slice(1) : argv;
  switch (named ? first : "serve") {
    case "serve": {
      const { values, positionals } = parseFlags(rest, SERVE_FLAGS, process.env);
      noArguments("serve", positionals, true);
      // Once started, they are among the start's notices (banner, log); a start refused says them first, as plain lines:
      // a typo in installer.env may have left in place the default that is refused.
      const notices = environmentNotices(SERVE_FLAGS, process.env);
      const warnPlainly = () => notices.forEach((notice) => process.stderr.write(`installer: warning: ${printableLines(notice)}\n`));
      let settings: ReturnType<typeof settingsFrom>;
      try {
        settings = settingsFrom(values);
        // A listen that fails says what to change in the words it was given in (installer.env, `npm start`: no flag).
        if (!typedIn(rest, "listen") && process.env.STRATUM_LISTEN) settings.listenFrom = "environment";
      } catch (err) {
        warnPlainly();
        const fromEnv = Object.keys(SERVE_FLAGS).filter((flag) => !typedIn(rest, flag));
        throw err instanceof UsageError ? fromEnvironment(err, fromEnv, process.env) : err;
      }
      serving = true;
      const [{ runServe }, { NeedsOperator }] = await Promise.all([import("./serve.ts"), import("../core/common/errors.ts")]);
      try {
        await runServe(settings, VERSION, codeCache, performance.now(), notices);
      } catch (err) {
        warnPlainly();
        // Another installer holds the state dir, or what is in it needs a person: a restart changes nothing.
        if (!(err instanceof NeedsOperator)) throw err;
        process.stderr.write(`installer: ${printableLines(err.message)}\n`);
        return 2;
      }
      return "serving";
    }
    case "validate": {
      const { values, positionals } = parseFlags(rest, VALIDATE_FLAGS, process.env);
      if (positionals.length !== 1) throw new UsageError("validate takes one node.yaml FILE, or - for stdin");
      if (positionals[0] === "") throw new UsageError("validate's FILE is an empty path (an unset variable?)");
      const format = namingTheVariable(rest, VALIDATE_FLAGS, () => oneOf("format", values.format!, FORMATS));
      const { validateFile } = await import("./validate.ts");
      return validateFile(positionals[0]!, { hostFacts: values["host-facts"], payload: values.payload!, format });
    }
    case "status": {
      const { values, booleans, positionals } = parseFlags(rest, STATUS_FLAGS, process.env, { follow: { type: "boolean" } });
      noArguments("status", positionals, true);
      const { lastStartRanWith } = await import("../core/state/last-start.ts");
      const ranWith = values.url === undefined ? await lastStartRanWith(values["state-dir"]!) : {};
      const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
      const typed = new Set(["port", "url"].filter((flag) => typedIn(rest, flag)));
      const url = namingTheVariable(rest, STATUS_FLAGS, () => statusUrl(values, ranWith, own, typed));
      // Neither said where (nor their variables): where the last start listens, read again when the installer is lost.
      const relocate = values.url === undefined && values.port === undefined ? async () => statusUrl(values, await lastStartRanWith(values["state-dir"]!), own, typed) : undefined;
      const { runStatus } = await import("./status.ts");
      return runStatus({ stateDir: values["state-dir"]!, url, tlsCert: values["tls-cert"], follow: booleans.follow!, ...(relocate ? { relocate } : {}) });
    }
    case "openapi": {
      takesNothing("openapi", rest);
      const { openApiDocument } = await import("../handlers/app.ts");
      return printJson(openApiDocument(VERSION));
    }
    case "schema": {
      takesNothing("schema", rest);
      const { nodeYamlJsonSchema } = await import("../core/config/index.ts");
      return printJson(nodeYamlJsonSchema());
    }
    case "support-bundle": {
      const at = rest.findIndex((arg) => arg === "--summary" || arg.startsWith("--summary="));
      if (at !== -1) {
        const joined = rest[at]!.startsWith("--summary=");
        const file = joined ? rest[at]!.slice("--summary=".length) : rest[at + 1];
        if (!file || rest.length !== (joined ? 1 : 2)) throw new UsageError("support-bundle --summary takes one bundle FILE and no other flag (it reads the bundle alone)");
        const { runSummary } = await import("./support-bundle.ts");
        return runSummary(file);
      }
      // --summary is read above; named here so that a typo of it is refused with it as what was meant.
      const { values, positionals } = parseFlags(rest.map((arg) => (arg === "-o" ? "--output" : arg)), SUPPORT_BUNDLE_FLAGS, process.env, { summary: { type: "boolean" } });
      noArguments("support-bundle", positionals, true);
      const { runSupportBundle } = await import("./support-bundle.ts");
      return runSupportBundle({
        stateDir: values["state-dir"]!,
        output: values.output,
        payload: values.payload,
        hostFacts: values["host-facts"],
        tlsKey: values["tls-key"],
        version: VERSION,
      });
    }
    case "prepare-image": {
      takesNothing("prepare-image", rest);
      const { prepareImage } = await import("./prepare-image.ts");
      return prepareImage(process.argv[1]!);
    }
    case "fleet": {
      const { runFleet } = await import("./fleet/index.ts");
      return runFleet(rest, process.env);
    }
    default:
      throw unknownCommand(first!, COMMANDS);
  }
}

/** The commands that need the service's code; the bundle's front (installer.ts) answers --help, --version and code itself. */
export function run(argv: string[], codeCache: CodeCache | undefined): void {
  whenStdoutGone(process.stdout, () => serving);
  settle(main(argv, codeCache));
}
