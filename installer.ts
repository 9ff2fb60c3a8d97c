import { printCode, printOpenApi, printSchema, validateFile, type Exit } from "./cli/commands.ts";
import { runFleet } from "./cli/fleet/index.ts";
import { SERVE_FLAGS, UsageError, parseFlags, settingsFrom, usage } from "./cli/flags.ts";
import { runServe } from "./cli/serve.ts";
import { StateDirLockedError } from "./core/state-lock.ts";

declare const __STRATUM_VERSION__: string | undefined;
const VERSION = typeof __STRATUM_VERSION__ === "string" ? __STRATUM_VERSION__ : "0.0.0-dev";

const COMMANDS = ["serve", "validate", "openapi", "schema", "code", "fleet"] as const;
type Command = (typeof COMMANDS)[number];

async function main(argv: string[]): Promise<Exit | number | "serving"> {
  const first = argv[0];
  const command: Command = first && !first.startsWith("-") ? (first as Command) : "serve";
  const rest = first && !first.startsWith("-") ? argv.slice(1) : argv;
  // fleet documents its own plan format under --help.
  if (command !== "fleet" && (argv.includes("--help") || argv.includes("-h"))) {
    process.stdout.write(usage(VERSION));
    return 0;
  }
  if (command !== "fleet" && argv.includes("--version")) {
    process.stdout.write(`stratum-installer ${VERSION}\n`);
    return 0;
  }
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${first}"; commands: ${COMMANDS.join(", ")}`);

  switch (command) {
    case "serve": {
      const { values, positionals } = parseFlags(rest, SERVE_FLAGS, process.env);
      if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got "${positionals.join(" ")}"`);
      await runServe(settingsFrom(values), VERSION);
      return "serving";
    }
    case "validate": {
      const { values, positionals } = parseFlags(rest, { "host-facts": SERVE_FLAGS["host-facts"], payload: SERVE_FLAGS.payload }, process.env);
      if (positionals.length !== 1) throw new UsageError("validate takes one node.yaml FILE");
      return validateFile(positionals[0]!, values["host-facts"], values.payload!);
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
