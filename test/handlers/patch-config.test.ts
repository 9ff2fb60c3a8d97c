import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { describe, test, type TestContext } from "node:test";
import route from "../../handlers/patch-config.ts";
import putConfig from "../../handlers/put-config.ts";
import { inProcessApp, type AppRequestOptions, type InProcessApp } from "../helpers/app.ts";
import { installedApp, startAttempt } from "../helpers/attempt.ts";
import { assertRefusedUnchanged } from "../helpers/draft-route.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { noSpace } from "../helpers/full-disk.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";

const path = "/v1/installer/config";
const patch = (body: AppRequestOptions["body"], contentType?: string, headers?: Record<string, string>): AppRequestOptions => ({ method: "PATCH", body, contentType, headers });
const refused = (installer: InProcessApp, request: AppRequestOptions, status: number, code: string, detail?: RegExp) =>
  assertRefusedUnchanged(installer, route, path, request, status, code, detail);

async function given(t: TestContext): Promise<InProcessApp> {
  const installer = await inProcessApp(t);
  assertAnswers(putConfig, 200, await installer.request(path, { method: "PUT", body: VALID_DRAFT }));
  return installer;
}

describe("PATCH /v1/installer/config", () => {
  test("200: a merge patch (replace, null removes, objects merge) fixes a half-filled draft; status and node.yaml follow", async (t) => {
    const installer = await inProcessApp(t);
    const half = { mode: "hyperconverged-init", hostname: "-bad-", network: { interface: "eth9", address: "10.20.0.11/24", gateway: "10.30.0.1", floatingIpCidrs: ["10.20.0.0/25", "203.0.113.0/33"] }, storge: {} };
    const put = await installer.request(path, { method: "PUT", body: half });
    assert.equal(assertAnswers(putConfig, 200, put).valid, false);
    const reply = await installer.request(
      path,
      patch(
        { mode: "single-node", hostname: "node-01", storge: null, network: { interface: "eno1", gateway: "10.20.0.1", floatingIpCidrs: ["203.0.113.0/24"] }, admin: VALID_DRAFT.admin },
        "application/merge-patch+json",
        { "if-match": String(put.headers.etag) },
      ),
    );
    const body = assertAnswers(route, 200, reply);
    assert.deepEqual({ ...body, updatedAt: null }, {
      source: "structured",
      config: { mode: "single-node", hostname: "node-01", network: { interface: "eno1", address: "10.20.0.11/24", gateway: "10.20.0.1", floatingIpCidrs: ["203.0.113.0/24"] }, admin: VALID_DRAFT.admin },
      valid: true,
      errors: [],
      updatedAt: null,
    });
    assert.notEqual(reply.headers.etag, put.headers.etag);
    const status = (await installer.request("/v1/installer/status")).json;
    assert.deepEqual([status.configValid, status.mode], [true, "single-node"]);
    const nodeYaml = await installer.request("/v1/installer/config/node.yaml");
    assert.match(nodeYaml.text, /^mode: "single-node"$/m);
    assert.match(nodeYaml.text, /floating_ip_cidrs:/);
    assert.match(nodeYaml.text, /ssh_authorized_keys:/);
  });

  test("200: application/json is taken as a merge patch too", async (t) => {
    const installer = await given(t);
    const body = assertAnswers(route, 200, await installer.request(path, patch({ timezone: "UTC" }, "application/json")));
    assert.deepEqual(body.config, { ...VALID_DRAFT, timezone: "UTC" });
  });

  test("200: a patch's bidi controls, C1 and line separators come back written out (\\u202e, \\u2028), the same draft once parsed", async (t) => {
    const installer = await given(t);
    const reply = await installer.request(path, patch({ timezone: UNPRINTABLE, [UNPRINTABLE]: { [UNPRINTABLE]: 1 } }, "application/merge-patch+json"));
    assertAnswers(route, 200, reply);
    assert.deepEqual(assertPrintableJson(reply.text).config, { ...VALID_DRAFT, timezone: UNPRINTABLE, [UNPRINTABLE]: { [UNPRINTABLE]: 1 } });
  });

  test("400 INVALID_REQUEST: a PATCH on a raw node.yaml draft, with a way forward (PUT)", async (t) => {
    const installer = await inProcessApp(t);
    await installer.request(path, { method: "PUT", body: "mode: single-node\n", contentType: "application/yaml" });
    await refused(installer, patch({ hostname: "x" }), 400, "INVALID_REQUEST", /PUT/);
  });
  test("400 INVALID_REQUEST: JSON that does not parse, naming line and column as PUT does", async (t) => {
    const installer = await given(t);
    await refused(installer, patch('{\n  "hostname":,\n}'), 400, "INVALID_REQUEST", /^The body is not valid JSON \(line 2, column 14\): /);
    const answer = await installer.request(path, patch('{"hostname":'));
    assert.deepEqual(answer.json.errors, [{ field: "", message: answer.json.errors[0].message, line: 1, column: 13 }], "the field error carries line and column");
  });
  test("400 INVALID_REQUEST: an empty body, as PUT says it", async (t) => {
    await refused(await given(t), patch(""), 400, "INVALID_REQUEST", /^The body is empty/);
  });
  test("400 INVALID_REQUEST: a JSON array, as PUT says it", async (t) => {
    await refused(await given(t), patch("[1,2]"), 400, "INVALID_REQUEST", /^The body must be a JSON object \(the draft\), not an array\.$/);
  });
  test("409 INSTALL_RUNNING while an attempt runs", async (t) => {
    const installer = await inProcessApp(t);
    await startAttempt(installer);
    await refused(installer, patch({ hostname: "node-02" }), 409, "INSTALL_RUNNING");
  });
  test("409 ALREADY_INSTALLED once the node is installed", async (t) => {
    await refused(await installedApp(t), patch({ hostname: "node-02" }), 409, "ALREADY_INSTALLED");
  });
  test("412 PRECONDITION_FAILED: an If-Match that is not the draft's ETag; the right one is taken", async (t) => {
    const installer = await given(t);
    await refused(installer, patch({ hostname: "x" }, undefined, { "if-match": '"stale"' }), 412, "PRECONDITION_FAILED");
    const etag = String((await installer.request(path)).headers.etag);
    assertAnswers(route, 200, await installer.request(path, patch({ timezone: "UTC" }, undefined, { "if-match": etag })));
  });
  test("412 for a stale If-Match even when the patch changes nothing: a patch applies to a draft someone else may have written, which its client never saw (only a PUT of the whole draft is answered as done)", async (t) => {
    const installer = await given(t);
    const first = String((await installer.request(path)).headers.etag);
    const other = String((await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, hostname: "node-09", timezone: "UTC" }, headers: { "if-match": first } })).headers.etag);
    await refused(installer, patch({ timezone: "UTC" }, undefined, { "if-match": first }), 412, "PRECONDITION_FAILED");
    assert.equal((await installer.request(path)).headers.etag, other);
  });
  test("412 first for a stale If-Match on a raw node.yaml draft, before the patch is judged", async (t) => {
    const installer = await given(t);
    const first = String((await installer.request(path)).headers.etag);
    await installer.request("/v1/installer/config/node.yaml", { method: "PUT", body: "mode: single-node\n", contentType: "application/yaml" });
    await refused(installer, patch({ timezone: "UTC" }, undefined, { "if-match": first }), 412, "PRECONDITION_FAILED");
  });
  test("412 PRECONDITION_FAILED: the draft's ETag made weak (W/), since If-Match compares strongly", async (t) => {
    const installer = await given(t);
    const etag = String((await installer.request(path)).headers.etag);
    await refused(installer, patch({ hostname: "x" }, undefined, { "if-match": `W/${etag}` }), 412, "PRECONDITION_FAILED");
    assert.equal((await installer.request(path)).headers.etag, etag);
  });
  test("413 BODY_TOO_LARGE: a 2 MiB body", async (t) => {
    await refused(await given(t), patch(JSON.stringify({ hostname: "x".repeat(2 * 1024 * 1024) })), 413, "BODY_TOO_LARGE");
  });
  test("415 UNSUPPORTED_MEDIA_TYPE: a gzip-encoded merge patch (Content-Encoding)", async (t) => {
    await refused(await given(t), patch(gzipSync(JSON.stringify({ hostname: "node-02" })), "application/merge-patch+json", { "content-encoding": "gzip" }), 415, "UNSUPPORTED_MEDIA_TYPE", /^Content-Encoding gzip is not taken here: send the body as it is, without a Content-Encoding\.$/);
  });

  test("415 UNSUPPORTED_MEDIA_TYPE: a node.yaml", async (t) => {
    await refused(await given(t), patch("hostname: x\n", "application/yaml"), 415, "UNSUPPORTED_MEDIA_TYPE");
  });
  test("415 UNSUPPORTED_MEDIA_TYPE: another +json type than merge-patch (a JSON Patch, a problem, any other), or none", async (t) => {
    const installer = await given(t);
    for (const type of ["application/json-patch+json", "application/problem+json", "application/foo+json", "text/plain"]) {
      await refused(installer, patch({ timezone: "Europe/Paris" }, type), 415, "UNSUPPORTED_MEDIA_TYPE", /application\/merge-patch\+json/);
    }
  });
  test("507 INSUFFICIENT_STORAGE: a state dir that refuses the write", async (t) => {
    const installer = await given(t);
    installer.services.draft.patch = async () => {
      throw noSpace(installer.stateDir);
    };
    await refused(installer, patch({ hostname: "node-02" }), 507, "INSUFFICIENT_STORAGE");
  });

  describeAuth(route, {
    path,
    request: patch({ timezone: "UTC" }),
    breaks: (services) => {
      services.draft.patch = async () => {
        throw new Error("draft store broken at /var/lib/stratum/secret-path");
      };
    },
  });
});
