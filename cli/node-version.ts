/** The oldest Node.js the installer runs on (package.json `engines`): AbortSignal.any came in 18.17. */
export const OLDEST_NODE = "18.17.0";

/** Whether `version` ("18.20.4", "v20.1.0") is at least OLDEST_NODE. */
export function isNodeSupported(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, "").split(".").map(Number);
  const [oldMajor = 0, oldMinor = 0, oldPatch = 0] = OLDEST_NODE.split(".").map(Number);
  return major !== oldMajor ? major > oldMajor : minor !== oldMinor ? minor > oldMinor : patch >= oldPatch;
}

// The bundle's first statement (installer.ts imports this module first), in syntax Node 12 still parses (the
// front is built for it): on an older Node, one line saying which Node it needs, before anything can fail.
if (!isNodeSupported(process.versions.node)) {
  process.stderr.write(`installer: this installer needs Node.js ${OLDEST_NODE} or newer, and this is Node.js ${process.version}; install a newer nodejs package, or run installer.js with a newer node\n`);
  process.exit(1);
}
