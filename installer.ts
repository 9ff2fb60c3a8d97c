import { printCode, printOpenApi, printSchema, type Exit } from "./cli/commands.ts";
import { whenStdoutGone } from "./cli/epipe.ts";
import { SERVE_FLAGS, STATUS_FLAGS, UsageError, VALIDATE_FLAGS, oneOf, parseFlags, settingsFrom, statusUrl, usage } from "./cli/flags.ts";
import { FORMATS } from "./cli/problem-format.ts";
import { runFleet } from "./cli/fleet/index.ts";
import { runServe } from "./cli/serve.ts";
import { runStatus } from "./cli/status.ts";
import { validateFile } from "./cli/validate.ts";
import { StateDirLockedError } from "./core/fs/state-lock.ts";

declare const __STRATUM_VERSION__: string | undefined;
const VERSION = typeof __STRATUM_VERSION__ === "string" ? __STRATUM_VERSION__ : "0.0.0-dev";

const COMMANDS = ["serve", "validate", "openapi", "schema", "code", "status", "fleet"] as const;
type Command = (typeof COMMANDS)[number];

let serving = false;

async function main(argv: string[]): Promise<Exit | number | "serving"> {
  // fleet documents its own plan format under --help.
  const fleet = argv[0] === "fleet";
  if (!fleet && (argv[0] === "help" || argv.includes("--help") || argv.includes("-h"))) {
    process.stdout.write(usage(VERSION));
    return 0;
  }
  if (!fleet && (argv.includes("--version") || argv.includes("-V"))) {
    process.stdout.write(`stratum-installer ${VERSION}\n`);
    return 0;
  }
  const first = argv[0];
  const command: Command = first && !first.startsWith("-") ? (first as Command) : "serve";
  const rest = first && !first.startsWith("-") ? argv.slice(1) : argv;
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${first}"; commands: ${COMMANDS.join(", ")}`);

  switch (command) {
    case "serve": {
      const { values, positionals } = parseFlags(rest, SERVE_FLAGS, process.env);
      if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got "${positionals.join(" ")}"`);
      serving = true;
      await runServe(settingsFrom(values), VERSION);
      return "serving";
    }
    case "validate": {
      const { values, positionals } = parseFlags(rest, VALIDATE_FLAGS, process.env);
      if (positionals.length !== 1) throw new UsageError("validate takes one node.yaml FILE, or - for stdin");
      return validateFile(positionals[0]!, { hostFacts: values["host-facts"], payload: values.payload!, format: oneOf("format", values.format!, FORMATS) });
    }
    case "status": {
      const { values, booleans, positionals } = parseFlags(rest, STATUS_FLAGS, process.env, { follow: { type: "boolean" } });
      if (positionals.length > 0) throw new UsageError(`status takes no arguments, got "${positionals.join(" ")}"`);
      return runStatus({ stateDir: values["state-dir"]!, url: statusUrl(values), tlsCert: values["tls-cert"], follow: booleans.follow! });
    }
    case "code": {
      const { values } = parseFlags(rest, { "state-dir": SERVE_FLAGS["state-dir"] }, process.env);
      return printCode(values["state-dir"]!);
    }
    case "openapi":
      parseFlags(rest, {}, process.env);
      return printOpenApi(VERSION);
    case "schema":
      parseFlags(rest, {}, process.env);
      return printSchema();
    case "fleet":
      return runFleet(rest, process.env);
  }
}

whenStdoutGone(process.stdout, () => serving);
main(process.argv.slice(2)).then(
  (result) => {
    if (result !== "serving") process.exitCode = result;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`installer: ${err.message}\nRun "node installer.js --help" for usage.\n`);
      process.exitCode = 2;
    } else if (err instanceof StateDirLockedError) {
      process.stderr.write(`installer: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`installer: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
