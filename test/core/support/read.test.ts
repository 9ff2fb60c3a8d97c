import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { summaryText } from "../../../cli/support-bundle.ts";
import { readBundle } from "../../../core/support/read.ts";
import { tempDir } from "../../helpers/installer.ts";

async function tarGz(files: Record<string, string | Buffer>): Promise<Buffer> {
  const packed = pack();
  for (const [name, body] of Object.entries(files)) packed.entry({ name }, body);
  packed.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of packed) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

async function file(bytes: Buffer | string): Promise<string> {
  const path = join(await tempDir("stratum-read-"), "bundle.tar.gz");
  await writeFile(path, bytes);
  return path;
}

test("a bundle is read as an installer makes it; what is no gzip, holds no manifest.json or unpacks past the cap is refused saying so", async () => {
  const manifest = JSON.stringify({ hostname: "node-01", files: [], leftOut: [] });
  assert.equal((await readBundle(await file(await tarGz({ "b/manifest.json": manifest })))).manifest?.hostname, "node-01");
  await assert.rejects(readBundle(await file("<html>a proxy's page</html>")), /incorrect header check/);
  await assert.rejects(readBundle(await file(await tarGz({ "b/hello.txt": "hi" }))), /holds no manifest\.json \(a JSON object\), which every installer's bundle does/);
  // A bomb in small: 2 MiB of zeros against a 1 MiB cap.
  const bomb = await file(await tarGz({ "b/manifest.json": manifest, "b/zeros": Buffer.alloc(2 * 1024 * 1024) }));
  await assert.rejects(readBundle(bomb, 1024 * 1024), /unpacks to over 1 MiB, which no installer's bundle does/);
  assert.ok((await readBundle(bomb)).manifest, "under the real cap it reads");
});

test("a bundle of more files than any installer's is refused as it is read (each entry cost the one before it: 400,000 empty verdicts took minutes), and a stop ends the read", async () => {
  const manifest = JSON.stringify({ hostname: "node-01", files: [], leftOut: [] });
  const many = Object.fromEntries([["b/manifest.json", manifest], ...Array.from({ length: 30 }, (_, i) => [`b/attempts/${i + 1}/verdict.json`, "{}"])]);
  const path = await file(await tarGz(many));
  assert.equal((await readBundle(path)).attempts.length, 30);
  await assert.rejects(readBundle(path, undefined, { maxFiles: 20 }), /holds more than 20 files, which no installer's bundle does/);
  await assert.rejects(readBundle(path, undefined, { signal: AbortSignal.abort() }), { name: "AbortError" });
});

test("an attempt's last events: a line longer than any event the installer writes is left out, not gathered (one line of megabytes re-split at every piece took minutes), and a character across two pieces stays whole", async () => {
  const manifest = JSON.stringify({ hostname: "node-01", files: [], leftOut: [] });
  const event = (seq: number, message: string) => JSON.stringify({ seq, attempt: 1, type: "step.log", message });
  const events = [event(1, "before"), "x".repeat(3 * 1024 * 1024), event(2, `after ${"é".repeat(40_000)}`), ""].join("\n");
  const contents = await readBundle(await file(await tarGz({ "b/manifest.json": manifest, "b/attempts/1/events.ndjson": events })));
  assert.deepEqual(contents.attempts[0]?.lastEvents, [event(1, "before"), event(2, `after ${"é".repeat(40_000)}`)]);
  // A file that is one endless line holds no event.
  const endless = await readBundle(await file(await tarGz({ "b/manifest.json": manifest, "b/attempts/1/events.ndjson": "y".repeat(4 * 1024 * 1024) })));
  assert.deepEqual(endless.attempts[0]?.lastEvents ?? [], []);
});

test("a bundle whose JSON has other shapes (another version's, one trimmed by hand, a crafted one) is summarised with what has the right type, never a crash", async () => {
  for (const [what, files] of [
    ["no leftOut", { "b/manifest.json": JSON.stringify({ hostname: "node-01", files: [] }) }],
    ["leftOut a string", { "b/manifest.json": JSON.stringify({ hostname: "node-01", leftOut: "oops" }) }],
    ["every field of another type", {
      "b/manifest.json": JSON.stringify({ hostname: 7, installer: {}, leftOut: [1, { path: 2 }, null] }),
      "b/status.json": JSON.stringify({ phase: ["failed"], mode: null }),
      "b/attempts/1/verdict.json": JSON.stringify({ outcome: "failed", step: "firstboot", message: { a: 1 }, code: 3 }),
      "b/attempts/1/report.json": JSON.stringify({ state: "failed", step: "firstboot", firstbootTail: "not a list" }),
      "b/attempts/1/events.ndjson": "{\"time\":1,\"message\":[]}\nnot json\n",
    }],
    ["JSON that is no object", { "b/manifest.json": JSON.stringify({ hostname: "node-01" }), "b/status.json": "[]", "b/attempts/1/verdict.json": "null", "b/attempts/1/report.json": "42" }],
  ] as const) {
    const bundle = await readBundle(await file(await tarGz(files)));
    const text = summaryText("b.tar.gz", bundle);
    assert.match(text, /^Support bundle b\.tar\.gz\n/, what);
    assert.doesNotMatch(text, /\[object Object\]|undefined/, `${what}:\n${text}`);
  }
  await assert.rejects(readBundle(await file(await tarGz({ "b/manifest.json": "[1, 2]" }))), /holds no manifest\.json \(a JSON object\)/);
});

test("--summary says whether the service ran as the bundle was made, where the manifest says", async () => {
  const service = "not running: its lock names pid 4242, which is gone (a crash or kill -9)";
  const said = summaryText("b.tar.gz", await readBundle(await file(await tarGz({ "b/manifest.json": JSON.stringify({ hostname: "node-01", phase: "installing", service }) }))));
  assert.match(said, new RegExp(`\n  phase: +installing\n  service: +${service.replace(/[()]/g, "\\$&")}\n`));
  const older = summaryText("b.tar.gz", await readBundle(await file(await tarGz({ "b/manifest.json": JSON.stringify({ hostname: "node-01" }) }))));
  assert.doesNotMatch(older, /service:/);
});
