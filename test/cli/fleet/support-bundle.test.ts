import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import type { FleetOutput, Level } from "../../../cli/fleet/output/index.ts";
import type { FleetNode } from "../../../cli/fleet/plan.ts";
import { gatherBundles, writeBundleIndex } from "../../../cli/fleet/support-bundle.ts";
import { tempDir } from "../../helpers/installer.ts";
import { fakeInstaller } from "../../helpers/fake-node.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const installer = fakeInstaller;

const node = (name: string, url: URL, pin: string): FleetNode => ({ index: 0, name, role: "join", access: { url, pin, code: `code-${name}` }, draft: () => ({}) as never });
/** A .tar.gz of the shape an installer's bundle has: its folder with a manifest.json (and enough besides to take time). */
async function tarGz(name: string, manifest = true): Promise<Buffer> {
  const packed = pack();
  if (manifest) packed.entry({ name: `stratum-support-${name}/manifest.json` }, JSON.stringify({ hostname: name, files: [], leftOut: [] }));
  packed.entry({ name: `stratum-support-${name}/service.log` }, `a bundle of ${name} `.repeat(5000));
  packed.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of packed) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}
const BUNDLES = new Map([["node-01", await tarGz("node-01")], ["node-02", await tarGz("node-02")]]);
const bytesOf = (name: string) => BUNDLES.get(name)!;
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const served = (name: string): Handler => (_req, res) => res.writeHead(200, { "content-type": "application/gzip" }).end(bytesOf(name));

function recorder(): FleetOutput & { notes: Array<[string | null, Level, string]> } {
  const notes: Array<[string | null, Level, string]> = [];
  const none = () => undefined;
  return { notes, note: (n, level, message) => notes.push([n, level, message]), problems: none, nodes: none, change: none, event: none, summary: none, close: none };
}

describe("fleet --support-bundle: each node's bundle and the index", () => {
  it("every node in the index in the plan's order: a bundle with its size and SHA-256, or why not (wrong certificate: nothing sent; refused; a problem in printable text; unreachable)", async (t) => {
    const good = await installer(t, served("node-01"));
    const pinned = await installer(t, served("node-02"));
    const refused = await installer(t, (_req, res) => res.writeHead(401, { "content-type": "application/problem+json" }).end(JSON.stringify({ code: "UNAUTHORIZED", detail: "no" })));
    const hostile = await installer(t, (_req, res) => res.writeHead(500, { "content-type": "application/problem+json" }).end(JSON.stringify({ code: "INTERNAL", detail: "oops\u001b[2J\u202e" })));
    const gone = createTcpServer().listen(0, "127.0.0.1");
    await once(gone, "listening");
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const nodes = [
      node("node-01", good.url, good.pin),
      node("node-02", pinned.url, "ab".repeat(32)),
      node("node-03", refused.url, refused.pin),
      node("node-04", hostile.url, hostile.pin),
      node("node-05", new URL(`https://127.0.0.1:${port}`), "ab".repeat(32)),
    ];
    const dir = join(await tempDir("stratum-bundles-"), "bundles");
    const out = recorder();
    const entries = await gatherBundles(nodes, dir, 2, out);
    const index = await writeBundleIndex(dir, "plan.yaml", entries, new Date("2026-12-04T15:00:00Z"));

    assert.equal(index, join(dir, "index.json"));
    const read = JSON.parse(await readFile(index, "utf8"));
    const kinds = read.nodes.map((e: { node: string; error?: string; file?: string }) => [e.node, e.error ?? e.file]);
    assert.deepEqual(kinds, [["node-01", "node-01.tar.gz"], ["node-02", "wrong-certificate"], ["node-03", "refused"], ["node-04", "failed"], ["node-05", "unreachable"]]);
    assert.deepEqual(read.nodes[0], { node: "node-01", installer: good.url.origin, file: "node-01.tar.gz", size: bytesOf("node-01").length, sha256: sha256(bytesOf("node-01")) });
    assert.deepEqual([read.plan, read.gatheredAt, read.gathered, read.missing], ["plan.yaml", "2026-12-04T15:00:00.000Z", 1, 4]);
    assert.match(read.nodes[1].detail, /presented a certificate whose SHA-256 is .* not the plan's AB:AB:.*: refused, nothing was sent/);
    assert.match(read.nodes[2].detail, /the install code was refused \(401\)/);
    assert.equal(read.nodes[3].detail, "the node answered 500 INTERNAL: oops\\x1b[2J\\u202e", "a node's text shown, never obeyed");
    assert.match(read.nodes[4].detail, /is unreachable: connect ECONNREFUSED/);

    assert.deepEqual(await readFile(join(dir, "node-01.tar.gz")), bytesOf("node-01"));
    assert.deepEqual((await readdir(dir)).sort(), ["index.json", "node-01.tar.gz"]);
    for (const file of ["index.json", "node-01.tar.gz"]) assert.equal((await stat(join(dir, file))).mode & 0o777, 0o600, file);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual(good.seen, ["GET /v1/installer/support-bundle Bearer code-node-01"], "asked with the node's own code");
    assert.deepEqual(pinned.seen, [], "nothing sent to another certificate");
    assert.deepEqual(out.notes.map(([n, level]) => [n, level]).sort(), nodes.map((n) => [n.name, n.name === "node-01" ? "info" : "error"]), "one line a node");
    assert.ok(out.notes.some(([, , message]) => message.startsWith(`support bundle: ${join(dir, "node-01.tar.gz")} (`)));
  });

  it("a node that answers with malformed HTTP (a broken chunked body): malformed in the index, naming the parser's code; not unreachable", async (t) => {
    const liar = await installer(t, (req) => req.socket.end("HTTP/1.1 200 OK\r\nContent-Type: application/gzip\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\nzz\r\n"));
    const dir = join(await tempDir("stratum-bundles-"), "bundles");
    const [entry] = await gatherBundles([node("node-01", liar.url, liar.pin)], dir, 1, recorder());
    assert.deepEqual(entry, { node: "node-01", installer: liar.url.origin, error: "malformed", detail: `${liar.url.host} gave an answer that is not its installer's: malformed HTTP (HPE_INVALID_CHUNK_SIZE: Invalid character in chunk size)` });
    assert.deepEqual(await readdir(dir), [], "no file, no temp");
  });

  it("--parallel N: N nodes asked at once", { timeout: 20_000 }, async (t) => {
    const waiting: Array<() => void> = [];
    const together: Handler = (req, res) => {
      waiting.push(() => res.writeHead(200).end(bytesOf(req.url ? "node-01" : "node-02")));
      if (waiting.length === 2) for (const answer of waiting.splice(0)) answer();
    };
    const a = await installer(t, together);
    const b = await installer(t, together);
    const dir = await tempDir("stratum-bundles-");
    const entries = await gatherBundles([node("a", a.url, a.pin), node("b", b.url, b.pin)], dir, 2, recorder());
    assert.deepEqual(entries.map((e) => "file" in e), [true, true], "each answered only once both were asked");
  });

  it("a 200 whose body is no installer's bundle (no gzip, or a tar without a manifest) is not counted one: not-a-bundle, the file kept for a look", async (t) => {
    const html = await installer(t, (_req, res) => res.writeHead(200, { "content-type": "application/gzip" }).end("<html>a proxy's page</html>"));
    const noManifest = await tarGz("node-02", false);
    const bare = await installer(t, (_req, res) => res.writeHead(200, { "content-type": "application/gzip" }).end(noManifest));
    const dir = join(await tempDir("stratum-bundles-"), "bundles");
    const entries = await gatherBundles([node("node-01", html.url, html.pin), node("node-02", bare.url, bare.pin)], dir, 2, recorder());
    assert.deepEqual(entries.map((e) => ("error" in e ? e.error : "file")), ["not-a-bundle", "not-a-bundle"]);
    assert.match((entries[0] as { detail: string }).detail, /incorrect header check; what came is kept as .*node-01\.not-a-bundle$/);
    assert.match((entries[1] as { detail: string }).detail, /holds no manifest\.json/);
    assert.deepEqual(await readFile(join(dir, "node-02.not-a-bundle")), noManifest);
    assert.deepEqual((await readdir(dir)).sort(), ["node-01.not-a-bundle", "node-02.not-a-bundle"], "no NODE.tar.gz that is none");
  });

  it("a bundle gathered earlier stays when the node now answers something that is none (a proxy's page): what came is kept beside it", async (t) => {
    const dir = await tempDir("stratum-bundles-");
    const good = await installer(t, served("node-01"));
    assert.deepEqual((await gatherBundles([node("node-01", good.url, good.pin)], dir, 1, recorder())).map((e) => "file" in e), [true]);
    const proxy = await installer(t, (_req, res) => res.writeHead(200, { "content-type": "application/gzip" }).end("<html>a proxy's page</html>"));
    const [entry] = await gatherBundles([node("node-01", proxy.url, proxy.pin)], dir, 1, recorder());
    assert.equal("error" in entry! && entry.error, "not-a-bundle");
    assert.deepEqual(await readFile(join(dir, "node-01.tar.gz")), bytesOf("node-01"), "the earlier bundle, as it came");
    assert.equal(await readFile(join(dir, "node-01.not-a-bundle"), "utf8"), "<html>a proxy's page</html>");
  });

  it("stopped (SIGTERM: a CI job's time-out): each node not gathered says by which signal, as the run's own line does, not Ctrl-C", { timeout: 20_000 }, async (t) => {
    const controller = new AbortController();
    const stuck = await installer(t, (_req, res) => {
      res.writeHead(200, { "content-type": "application/gzip" }).write(bytesOf("node-01").subarray(0, 100));
      setImmediate(() => controller.abort("SIGTERM"));
    });
    const never = await installer(t, served("node-02"));
    const dir = join(await tempDir("stratum-bundles-"), "bundles");
    const entries = await gatherBundles([node("node-01", stuck.url, stuck.pin), node("node-02", never.url, never.pin)], dir, 1, recorder(), controller.signal);
    assert.deepEqual(entries.map((e) => ("detail" in e ? e.detail : e.file)), ["not gathered: the run was stopped (SIGTERM)", "not gathered: the run was stopped (SIGTERM)"]);
  });

  it("stopped (Ctrl-C): the download under way ends with its temp file removed, no other begins, what came is kept; each node says which", { timeout: 20_000 }, async (t) => {
    const controller = new AbortController();
    const good = await installer(t, served("node-01"));
    // The second sends half a bundle, then nothing; the stop comes while it waits.
    const stuck = await installer(t, (_req, res) => {
      res.writeHead(200, { "content-type": "application/gzip" }).write(bytesOf("node-02").subarray(0, 100));
      setImmediate(() => controller.abort());
    });
    const never = await installer(t, served("node-01"));
    const dir = join(await tempDir("stratum-bundles-"), "bundles");
    const entries = await gatherBundles([node("node-01", good.url, good.pin), node("node-02", stuck.url, stuck.pin), node("node-03", never.url, never.pin)], dir, 1, recorder(), controller.signal);
    assert.deepEqual(entries.map((e) => ("error" in e ? e.error : "file")), ["file", "stopped", "stopped"]);
    assert.deepEqual((await readdir(dir)).sort(), ["node-01.tar.gz"], "no temp file, no half bundle");
    assert.equal(never.seen.length, 0, "the third was never asked");
  });

  it("a gather killed (kill -9) mid-download left its temp files in the folder: the next gather removes those whose process is gone, keeps a running one's, and never a bundle", async (t) => {
    const [one, two] = [await installer(t, served("node-01")), await installer(t, served("node-02"))];
    const dir = join(await tempDir("stratum-bundles-"), "bundles");
    await mkdir(dir);
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const running = process.ppid;
    const left = [`.node-01.tar.gz.${gone}.tmp`, `.node-02.tar.gz.${gone}.tmp`, `.index.json.${gone}.tmp`];
    for (const name of [...left, `.node-01.tar.gz.${running}.tmp`, "node-02.tar.gz"]) await writeFile(join(dir, name), "half a bundle");
    const entries = await gatherBundles([node("node-01", one.url, one.pin), node("node-02", two.url, two.pin)], dir, 2, recorder());
    await writeBundleIndex(dir, "plan.yaml", entries, new Date());
    assert.deepEqual((await readdir(dir)).sort(), [`.node-01.tar.gz.${running}.tmp`, "index.json", "node-01.tar.gz", "node-02.tar.gz"]);
    assert.deepEqual(await readFile(join(dir, "node-02.tar.gz")), bytesOf("node-02"), "a bundle is replaced whole");
  });
});
