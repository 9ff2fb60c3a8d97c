import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { DraftSchema } from "../../core/config/schema.ts";
import { parseJsonBody } from "../../core/draft/index.ts";
import { SAMPLE_DRAFT, warmUp } from "../../handlers/warm-up.ts";
import { inProcessApp } from "../helpers/app.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";

/** Every file under the state dir: its mode and bytes. */
async function snapshot(dir: string, into = new Map<string, string>()): Promise<Map<string, string>> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await snapshot(path, into);
    else into.set(path, `${(await stat(path)).mode.toString(8)} ${(await readFile(path)).toString("base64")}`);
  }
  return into;
}

describe("the warm-up of the request paths (handlers/warm-up.ts)", () => {
  test("changes nothing: no state file, no log line, the same status and draft (ETag) as before", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: JSON.stringify(VALID_DRAFT) })).status, 200);
    // A wrong code first: the warm-up must neither clear nor add to the lockout's count.
    assert.equal((await installer.request("/v1/installer/status", { code: "AAAA-BBBB-CCCC" })).status, 401);
    const status = (await installer.request("/v1/installer/status")).json;
    const config = await installer.request("/v1/installer/config");
    const files = await snapshot(installer.stateDir);
    const lines = installer.log.length;

    await warmUp(installer.app, installer.services);

    assert.deepEqual(await snapshot(installer.stateDir), files);
    assert.equal(installer.log.length, lines, `no log line: ${installer.log.slice(lines).join("")}`);
    assert.deepEqual((await installer.request("/v1/installer/status")).json, status);
    const after = await installer.request("/v1/installer/config");
    assert.equal(after.headers.etag, config.headers.etag);
    assert.deepEqual(after.json, config.json);
  });

  test("the API answers as before after it: routes, a 404, a validation", async (t) => {
    const installer = await inProcessApp(t);
    await warmUp(installer.app, installer.services);
    assert.equal((await installer.request("/healthz")).status, 200);
    assert.equal((await installer.request("/v1/installer/no-such-route")).status, 404);
    const checked = await installer.request("/v1/installer/config/validate", { method: "POST", body: JSON.stringify({ ...VALID_DRAFT, hostname: "-bad-" }) });
    assert.equal(checked.status, 200);
    assert.deepEqual((checked.json as { errors: { field: string }[] }).errors.map((e) => e.field), ["hostname"]);
  });

  test("its sample draft fills every section and validates on the demo host: every rule runs, none stops it early", async (t) => {
    const installer = await inProcessApp(t);
    const result = installer.services.draft.validate(parseJsonBody(SAMPLE_DRAFT));
    assert.deepEqual(result.errors, []);
    assert.equal(result.mode, "hyperconverged-join");
    assert.deepEqual(Object.keys(JSON.parse(SAMPLE_DRAFT)).sort(), Object.keys(DraftSchema.shape).sort());
  });
});
