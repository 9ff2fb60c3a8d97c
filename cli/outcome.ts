import { printableLines } from "../core/common/printable.ts";
import { UsageError } from "./flags.ts";

/** Ends a command: with its exit code, or with its failure on stderr (2 for a usage error, else 1). */
export function settle(outcome: Promise<number | "serving">): void {
  outcome.then(
    (result) => {
      if (result !== "serving") process.exitCode = result;
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`installer: ${printableLines(err.message)}\nRun "node installer.js --help" for usage.\n`);
        process.exitCode = 2;
      } else {
        // A path or a value from the command line or a file may hold escape sequences: shown, never obeyed.
        process.stderr.write(`installer: ${printableLines(err instanceof Error ? err.message : String(err))}\n`);
        process.exitCode = 1;
      }
    },
  );
}
