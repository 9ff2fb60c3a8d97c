let goingOn: { saying: string; refused?: string } | undefined;

/**
 * For a command whose work goes on past what it prints (the fleet: nodes to install, a state file and a report to
 * write), a closed stdout ends nothing: it is said once on stderr (`saying`), and the command ends as its work does,
 * with its own exit code — `fleet | head` must not exit 0 with half a cluster installed. With `refused`, a stdout that
 * refuses a write (a log on a full disk) ends nothing either, said once as its error and `refused`: the fleet stopped
 * there left a cluster half installed, its state file's last write, its report and its lock not done.
 */
export function goOnWithoutStdout(saying: string, { refused }: { refused?: string } = {}): void {
  goingOn = { saying, ...(refused === undefined ? {} : { refused }) };
}

/**
 * The reader of stdout went away (`installer openapi | head`): there is nobody left to tell, so a
 * command ends quietly with 0 instead of a stack trace; the service keeps serving without its banner; a command that
 * goes on without stdout (goOnWithoutStdout) goes on. stdout that cannot be written (a file on a full disk) is said
 * on stderr: a command exits 1, the service serves on. The one handler for every command (the front's and main's).
 */
export function whenStdoutGone(stdout: NodeJS.WriteStream, serving: () => boolean): void {
  // stderr on the same full disk (`> /dev/full 2>&1`): what it cannot say is lost, not a crash of its own.
  process.stderr.on("error", () => undefined);
  let said = false;
  stdout.on("error", (err: NodeJS.ErrnoException) => {
    // Once gone, the writes after it fail too (a destroyed stream): nothing more to say.
    if (said) return;
    if (err.code === "EPIPE") {
      if (goingOn !== undefined) {
        process.stderr.write(`installer: ${goingOn.saying}\n`);
        said = true;
        return;
      }
      if (!serving()) process.exit(0);
      return;
    }
    // stdout a file on a full disk (`… > out`, /dev/full), or an I/O error: what was asked for is not all written.
    if (goingOn?.refused !== undefined) {
      process.stderr.write(`installer: cannot write to stdout: ${err.message}: ${goingOn.refused}\n`);
      said = true;
      return;
    }
    process.stderr.write(`installer: cannot write to stdout: ${err.message}\n`);
    if (!serving()) process.exit(1);
  });
}
