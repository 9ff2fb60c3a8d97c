import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { z } from "@hono/zod-openapi";
import { DraftSchema } from "../../core/config/schema.ts";
import { parseJsonBody } from "../../core/draft/index.ts";
import { SAMPLE_DRAFT, warmUp } from "../../handlers/warm-up.ts";
import { inProcessApp } from "../helpers/app.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";

/** Everything under the state dir: each folder and file, its inode (a rename-based save makes a new one), mode, mtime and bytes. */
async function snapshot(dir: string, into = new Map<string, string>()): Promise<Map<string, string>> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const { ino, mode, mtimeMs } = await stat(path);
    into.set(path, `${ino} ${mode.toString(8)} ${mtimeMs} ${entry.isDirectory() ? "folder" : (await readFile(path)).toString("base64")}`);
    if (entry.isDirectory()) await snapshot(path, into);
  }
  return into;
}

/** A draft's field paths (network.dns, …): a schema's down through its objects, or a draft's own. */
function schemaFields(schema: z.ZodType, at = ""): string[] {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (!(inner instanceof z.ZodObject)) return [at];
  return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, field]) => schemaFields(field, at ? `${at}.${key}` : key));
}
const draftFields = (value: unknown, at = ""): string[] =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value).flatMap(([key, field]) => draftFields(field, at ? `${at}.${key}` : key)) : [at];

describe("the warm-up of the request paths (handlers/warm-up.ts)", () => {
  test("changes nothing: no state file, no log line, the same status and draft (ETag) as before", async (t) => {
    const installer = await inProcessApp(t);
    await installer.untilNoBlockers();
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: JSON.stringify(VALID_DRAFT) })).status, 200);
    // Wrong codes first, from another address and from a socket that has none: the warm-up, which presents the right
    // code, must neither clear nor add to their counts.
    const wrong = async () => {
      for (const from of ["127.0.0.2", "unknown"]) assert.equal((await installer.request("/v1/installer/status", { code: "AAAA-BBBB-CCCC", from })).status, 401);
    };
    await wrong();
    const status = (await installer.request("/v1/installer/status")).json;
    const config = await installer.request("/v1/installer/config");
    const files = await snapshot(installer.stateDir);
    const lines = installer.log.length;

    await warmUp(installer.app, installer.code);

    assert.deepEqual(await snapshot(installer.stateDir), files);
    assert.equal(installer.log.length, lines, `no log line: ${installer.log.slice(lines).join("")}`);
    assert.deepEqual((await installer.request("/v1/installer/status")).json, status);
    const after = await installer.request("/v1/installer/config");
    assert.equal(after.headers.etag, config.headers.etag);
    assert.deepEqual(after.json, config.json);
    await wrong();
    const counted = installer.log.map((line) => JSON.parse(line) as { message: string; client?: string; failures?: number }).filter((l) => l.message === "wrong install code");
    assert.deepEqual(counted.map((l) => [l.client, l.failures]), [["127.0.0.2", 1], ["unknown", 1], ["127.0.0.2", 2], ["unknown", 2]]);
  });

  test("a stop asked for while it runs: nothing more is asked, and it says it did not finish", async (t) => {
    const installer = await inProcessApp(t);
    const asked: string[] = [];
    const app = { request: ((...args: Parameters<typeof installer.app.request>) => (asked.push(String(args[0])), installer.app.request(...args))) as typeof installer.app.request };
    assert.equal(await warmUp(app, installer.code, () => asked.length > 0), false);
    assert.deepEqual(asked, ["/v1/installer/status"]);
    assert.equal(await warmUp(app, installer.code), true);
  });

  test("the API answers as before after it: routes, a 404, a validation", async (t) => {
    const installer = await inProcessApp(t);
    await warmUp(installer.app, installer.code);
    assert.equal((await installer.request("/healthz")).status, 200);
    assert.equal((await installer.request("/v1/installer/no-such-route")).status, 404);
    const checked = await installer.request("/v1/installer/config/validate", { method: "POST", body: JSON.stringify({ ...VALID_DRAFT, hostname: "-bad-" }) });
    assert.equal(checked.status, 200);
    assert.deepEqual((checked.json as { errors: { field: string }[] }).errors.map((e) => e.field), ["hostname"]);
  });

  test("its sample draft fills every field and validates on the demo host: every rule runs, none stops it early", async (t) => {
    const installer = await inProcessApp(t);
    const result = installer.services.draft.validate(parseJsonBody(SAMPLE_DRAFT));
    assert.deepEqual(result.errors, []);
    assert.equal(result.mode, "hyperconverged-join");
    assert.deepEqual(draftFields(JSON.parse(SAMPLE_DRAFT)).sort(), schemaFields(DraftSchema).sort());
  });
});
