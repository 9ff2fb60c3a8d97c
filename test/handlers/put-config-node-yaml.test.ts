import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { describe, test, type TestContext } from "node:test";
import getConfig from "../../handlers/get-config.ts";
import getNodeYaml from "../../handlers/get-config-node-yaml.ts";
import route from "../../handlers/put-config-node-yaml.ts";
import putConfig from "../../handlers/put-config.ts";
import { inProcessApp, type AppRequestOptions, type InProcessApp } from "../helpers/app.ts";
import { installedApp, startAttempt } from "../helpers/attempt.ts";
import { assertRefusedUnchanged } from "../helpers/draft-route.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { noSpace } from "../helpers/full-disk.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";

const path = "/v1/installer/config/node.yaml";
const put = (body: AppRequestOptions["body"], contentType = "application/yaml", headers?: Record<string, string>): AppRequestOptions => ({ method: "PUT", body, contentType, headers });
const refused = (installer: InProcessApp, request: AppRequestOptions, status: number, code: string, detail?: RegExp) =>
  assertRefusedUnchanged(installer, route, path, request, status, code, detail);

async function given(t: TestContext): Promise<InProcessApp> {
  const installer = await inProcessApp(t);
  assertAnswers(putConfig, 200, await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT }));
  return installer;
}

describe("PUT /v1/installer/config/node.yaml", () => {
  test("200: a raw node.yaml is kept verbatim (charset parameter taken); GET on the path gives the node.yaml the install writes", async (t) => {
    const installer = await given(t);
    const body = assertAnswers(route, 200, await installer.request(path, put(VALID_NODE_YAML, "application/yaml; charset=utf-8")));
    assert.deepEqual({ ...body, updatedAt: null }, { source: "yaml", yaml: VALID_NODE_YAML, valid: true, errors: [], updatedAt: null });
    assert.equal(assertAnswers(getNodeYaml, 200, await installer.request(path)), VALID_NODE_YAML);
  });

  test("200: a node.yaml that does not parse is stored as PUT /config stores it: its parse error at line and column, and /status has no mode", async (t) => {
    const installer = await given(t);
    const first = String((await installer.request("/v1/installer/config")).headers.etag);
    const broken = "# half-edited\nmode: single-node\nhostname: \"node-07\n";
    const reply = await installer.request(path, put(broken, "text/yaml", { "if-match": first }));
    const body = assertAnswers(route, 200, reply);
    assert.deepEqual([body.source, body.yaml, body.valid], ["yaml", broken, false]);
    assert.match(body.errors[0]!.message, /^YAML syntax error: /);
    assert.ok(body.errors[0]!.line! >= 1, JSON.stringify(body.errors));
    const get = await installer.request("/v1/installer/config");
    assert.deepEqual(assertAnswers(getConfig, 200, get), body);
    assert.equal(get.headers.etag, reply.headers.etag);
    assert.equal((await installer.request("/v1/installer/status")).json.mode, undefined);
    const viaPutConfig = await installer.request("/v1/installer/config", { method: "PUT", body: broken, contentType: "text/yaml" });
    assert.deepEqual({ ...assertAnswers(putConfig, 200, viaPutConfig), updatedAt: null }, { ...body, updatedAt: null }, "PUT /config stores it the same");
  });

  test("200: the log line of the change carries the request's X-Request-Id and client, as PUT /config's does", async (t) => {
    const installer = await given(t);
    const reply = await installer.request(path, { ...put(VALID_NODE_YAML), from: "::ffff:127.0.0.7" });
    assertAnswers(route, 200, reply);
    const changes = installer.log.map((line) => JSON.parse(line)).filter((entry) => entry.message === "config changed" && entry.source === "yaml");
    assert.deepEqual(
      changes.map(({ requestId, client, change }) => ({ requestId, client, change })),
      [{ requestId: reply.headers["x-request-id"], client: "127.0.0.7", change: "replace" }],
    );
  });

  test("200: a node.yaml's bidi controls, C1 and line separators come back written out (\\u202e, \\u0085), the same text once parsed", async (t) => {
    const installer = await given(t);
    const yaml = `# rack 4 ${UNPRINTABLE}\n${VALID_NODE_YAML}`;
    const reply = await installer.request(path, put(yaml));
    assertAnswers(route, 200, reply);
    assert.equal(assertPrintableJson(reply.text).yaml, yaml);
  });

  test("400 INVALID_REQUEST: an empty node.yaml", async (t) => {
    await refused(await given(t), put(""), 400, "INVALID_REQUEST", /^The body is empty/);
  });
  test("409 INSTALL_RUNNING while an attempt runs", async (t) => {
    const installer = await inProcessApp(t);
    await startAttempt(installer);
    await refused(installer, put(VALID_NODE_YAML), 409, "INSTALL_RUNNING");
  });
  test("409 ALREADY_INSTALLED once the node is installed", async (t) => {
    await refused(await installedApp(t), put(VALID_NODE_YAML), 409, "ALREADY_INSTALLED");
  });
  test("412 PRECONDITION_FAILED: an If-Match that is not the draft's ETag; the right one is taken", async (t) => {
    const installer = await given(t);
    const first = String((await installer.request("/v1/installer/config")).headers.etag);
    assertAnswers(route, 200, await installer.request(path, put("mode: single-node\n", "application/yaml", { "if-match": first })));
    await refused(installer, put(VALID_NODE_YAML, "application/yaml", { "if-match": first }), 412, "PRECONDITION_FAILED");
    await refused(installer, put(VALID_NODE_YAML, "application/yaml", { "if-match": '"stale"' }), 412, "PRECONDITION_FAILED");
    const current = String((await installer.request("/v1/installer/config")).headers.etag);
    assertAnswers(route, 200, await installer.request(path, put(VALID_NODE_YAML, "application/yaml", { "if-match": current })));
  });
  test("400 INVALID_REQUEST: a node.yaml that is not UTF-8 (a Latin-1 comment), refused as the unattended handoff refuses it, never stored with U+FFFD for its bytes", async (t) => {
    const latin1 = Buffer.concat([Buffer.from(VALID_NODE_YAML), Buffer.from("# r\xe9seau du labo\n", "latin1")]);
    await refused(await given(t), put(latin1), 400, "INVALID_REQUEST", /^The body is not UTF-8 text \(save it as UTF-8\)\.$/);
  });
  test("413 BODY_TOO_LARGE: a 2 MiB node.yaml", async (t) => {
    await refused(await given(t), put(`hostname: ${"x".repeat(2 * 1024 * 1024)}\n`), 413, "BODY_TOO_LARGE");
  });
  test("415 UNSUPPORTED_MEDIA_TYPE: a gzip-encoded node.yaml (Content-Encoding), never stored as its compressed bytes", async (t) => {
    await refused(await given(t), put(gzipSync(VALID_NODE_YAML), "application/yaml", { "content-encoding": "gzip" }), 415, "UNSUPPORTED_MEDIA_TYPE", /^Content-Encoding gzip is not taken here: send the body as it is, without a Content-Encoding\.$/);
  });

  test("415 UNSUPPORTED_MEDIA_TYPE: a JSON draft, told to send a node.yaml", async (t) => {
    await refused(await given(t), put(VALID_DRAFT, "application/json"), 415, "UNSUPPORTED_MEDIA_TYPE", /^Content-Type application\/json is not taken here: send the node\.yaml as application\/yaml or text\/yaml\.$/);
  });
  test("507 INSUFFICIENT_STORAGE: a state dir that refuses the write", async (t) => {
    const installer = await given(t);
    installer.services.draft.replace = async () => {
      throw noSpace(installer.stateDir);
    };
    await refused(installer, put(VALID_NODE_YAML), 507, "INSUFFICIENT_STORAGE");
  });

  describeAuth(route, {
    path,
    request: put(VALID_NODE_YAML),
    breaks: (services) => {
      services.draft.replace = async () => {
        throw new Error("draft store broken at /var/lib/stratum/secret-path");
      };
    },
  });
});
