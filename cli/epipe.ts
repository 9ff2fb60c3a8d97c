/**
 * The reader of stdout went away (`installer openapi | head`): there is nobody left to tell, so a
 * command ends quietly with 0 instead of a stack trace; the service keeps serving without its banner. The one
 * handler for every command (the front's and main's, the fleet's included): the installs a fleet started go on on their nodes.
 */
export function whenStdoutGone(stdout: NodeJS.WriteStream, serving: () => boolean): void {
  stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    if (!serving()) process.exit(0);
  });
}
