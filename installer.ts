/**
 * The bundle's front: answers --help, --version and code itself; every other command runs from cli/main.ts, whose
 * code the build keeps after the front as comments and cli/fast-start.ts compiles when such a command is asked for.
 */
import "./cli/node-version.ts";
import { printCode, type Exit } from "./cli/commands.ts";
import { whenStdoutGone } from "./cli/epipe.ts";
import { SERVE_FLAGS, helpTopic, noArguments, parseFlags, usage } from "./cli/flags.ts";
import { settle } from "./cli/outcome.ts";
import type * as Commands from "./cli/main.ts";
import { VERSION } from "./cli/version.ts";

type FrontCommand = "help" | "version" | "code";

function frontCommand(argv: string[]): FrontCommand | undefined {
  // After "--" every word is an argument: `validate -- -h` checks a file named -h.
  const flags = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  // fleet documents its own plan format under --help (fleet's parser answers it); its --version is every command's.
  if (argv[0] !== "fleet" && (argv[0] === "help" || flags.includes("--help") || flags.includes("-h"))) return "help";
  if (flags.includes("--version") || flags.includes("-V")) return "version";
  return argv[0] === "code" ? "code" : undefined;
}

async function answer(command: FrontCommand, argv: string[]): Promise<Exit> {
  switch (command) {
    case "help":
      process.stdout.write(usage(VERSION, helpTopic(argv)));
      return 0;
    case "version":
      process.stdout.write(`stratum-installer ${VERSION}\n`);
      return 0;
    case "code": {
      // Its own module, not cli/main.ts: printing the code must not wait for the commands' code to compile.
      const { values, positionals } = parseFlags(argv.slice(1), { "state-dir": SERVE_FLAGS["state-dir"] }, process.env);
      noArguments("code", positionals, true);
      return printCode(values["state-dir"]!);
    }
  }
}

/** serve's state dir, where its code cache is; undefined for the other commands, or for flags serve will refuse. */
function serveStateDir(argv: string[]): string | undefined {
  const first = argv[0];
  if (first !== undefined && !first.startsWith("-") && first !== "serve") return undefined;
  try {
    return parseFlags(first === "serve" ? argv.slice(1) : argv, SERVE_FLAGS, process.env).values["state-dir"];
  } catch {
    return undefined;
  }
}

/**
 * The command line as it is run: `help fleet` is `fleet --help`, which fleet's parser answers (its plan format and
 * flags), as `help COMMAND` is `COMMAND --help` for every command; its words after fleet are help's, as for the others.
 */
const given = process.argv.slice(2);
const argv = given[0] === "help" && given[1] === "fleet" ? ["fleet", "--help"] : given;
const command = frontCommand(argv);
if (command) {
  whenStdoutGone(process.stdout, () => false);
  settle(answer(command, argv));
} else {
  // Imported here: it loads node:crypto, which alone costs --version ≈ 0.3× `node -e 0` on Node 24.
  void import("./cli/fast-start.ts").then(({ loadCommands }) => {
    let loaded: ReturnType<typeof loadCommands<typeof Commands>>;
    try {
      loaded = loadCommands<typeof Commands>(serveStateDir(argv));
    } catch (err) {
      // A bundle damaged in transit (a CRLF conversion, a truncated copy): say so, not a stack trace.
      process.stderr.write(`installer: this installer.js is damaged (${String(err)}); copy it again\n`);
      process.exitCode = 1;
      return;
    }
    // cli/main.ts's run: compiled only now, so that --version and code never pay for the commands' code.
    loaded.commands.run(argv, loaded.codeCache);
  });
}
