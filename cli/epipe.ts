/**
 * The reader of stdout went away (`installer openapi | head`): there is nobody left to tell, so a
 * command ends quietly with 0 instead of a stack trace; the service keeps serving without its banner. stdout that
 * cannot be written (a file on a full disk) is said on stderr: a command exits 1, the service serves on. The one
 * handler for every command (the front's and main's, the fleet's included): the installs a fleet started go on on their nodes.
 */
export function whenStdoutGone(stdout: NodeJS.WriteStream, serving: () => boolean): void {
  // stderr on the same full disk (`> /dev/full 2>&1`): what it cannot say is lost, not a crash of its own.
  process.stderr.on("error", () => undefined);
  stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") {
      if (!serving()) process.exit(0);
      return;
    }
    // stdout a file on a full disk (`… > out`, /dev/full), or an I/O error: what was asked for is not all written.
    process.stderr.write(`installer: cannot write to stdout: ${err.message}\n`);
    if (!serving()) process.exit(1);
  });
}
