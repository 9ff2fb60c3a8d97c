import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { finished, install, installRig, putDraft, readSse } from "../helpers/install-rig.ts";
import { extractBundle } from "../helpers/support-bundle.ts";
import { RAW } from "../helpers/printable-json.ts";

// A firstboot that says an 8-bit CSI, a right-to-left override and a line separator, then fails.
const FIRSTBOOT = `#!/bin/sh\nprintf 'disk \\302\\2332J \\342\\200\\256busy\\342\\200\\250\\n'\nexit 3\n`;
const SAID = "disk \u009b2J \u202ebusy\u2028";

test("what a firstboot said reaches no one raw in the service's own JSON: the events (page, stream and file), the verdict, the report, the log, the support bundle; each parses back to what it said", async (t) => {
  const installer = await installRig(t, { firstboot: FIRSTBOOT });
  await putDraft(installer);
  await install(installer);
  await finished(installer, 1);

  const page = await installer.request("/v1/installer/install/events?attempt=1");
  assert.doesNotMatch(page.text, RAW);
  assert.ok(page.json.events.some((e: { message: string }) => e.message === SAID), page.text);
  const stream = await readSse(installer, "/v1/installer/install/events?attempt=1");
  assert.ok(stream.messages.length > 0);
  for (const message of stream.messages) assert.doesNotMatch(message.data, RAW);
  assert.ok(stream.messages.some((m) => JSON.parse(m.data).message === SAID));

  const verdict = await installer.request("/v1/installer/install/verdict?attempt=1");
  assert.equal(verdict.json.code, "FIRSTBOOT_FAILED");
  assert.doesNotMatch(verdict.text, RAW);
  const report = await installer.request("/v1/installer/install/report?attempt=1");
  assert.doesNotMatch(report.text, RAW);
  assert.ok(report.json.firstbootTail.includes(SAID), report.text);

  const file = await readFile(join(installer.stateDir, "events/attempt-1.jsonl"), "utf8");
  assert.doesNotMatch(file, RAW);
  assert.ok(file.split("\n").filter(Boolean).some((line) => JSON.parse(line).message === SAID));
  assert.ok(installer.log.some((line) => line.includes("\\u202e")), "the log has the line, written out");
  for (const line of installer.log) assert.doesNotMatch(line, RAW);

  const headers = { authorization: `Bearer ${installer.code}` };
  const bundle = await installer.app.request("/v1/installer/support-bundle", { headers }, { incoming: { socket: { remoteAddress: "127.0.0.1" }, headers } });
  assert.equal(bundle.status, 200);
  const { files } = await extractBundle(Buffer.from(await bundle.arrayBuffer()));
  assert.ok([...files.values()].some((text) => text.includes("\\u202ebusy")), "the bundle has what firstboot said, written out");
  for (const [path, text] of files) assert.doesNotMatch(text, RAW, path);
});
