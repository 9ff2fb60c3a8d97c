import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { makePayload } from "../../demo/make-payload.ts";
import route from "../../handlers/post-config-validate.ts";
import { inProcessApp, type AppRequestOptions } from "../helpers/app.ts";
import { assertRefusedUnchanged } from "../helpers/draft-route.ts";
import { INIT_DRAFT, VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { tempDir } from "../helpers/installer.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { assertProblem } from "../helpers/problem.ts";
import { MAX_CONFIG_DEPTH } from "../../core/config/index.ts";
import { UNPRINTABLE, assertPrintableJson, yamlQuoted } from "../helpers/printable-json.ts";

const path = "/v1/installer/config/validate";
const post = (body: AppRequestOptions["body"], contentType?: string | null): AppRequestOptions => ({ method: "POST", body, contentType });

describe("POST /v1/installer/config/validate", () => {
  test("200: a structured draft is judged without storing it", async (t) => {
    const installer = await inProcessApp(t);
    const before = await installer.request("/v1/installer/config");
    const bad = assertAnswers(route, 200, await installer.request(path, post({ ...VALID_DRAFT, hostname: "UPPER_case" })));
    assert.deepEqual({ ...bad, errors: bad.errors.map((e) => e.field) }, { valid: false, errors: ["hostname"], mode: "single-node", profile: "single-node" });
    const ok = assertAnswers(route, 200, await installer.request(path, post(VALID_DRAFT)));
    assert.deepEqual(ok, { valid: true, errors: [], mode: "single-node", profile: "single-node" });
    const now = await installer.request("/v1/installer/config");
    assert.equal(now.headers.etag, before.headers.etag);
    assert.deepEqual(now.json, before.json);
  });

  test("200: a raw node.yaml is judged too; one that does not parse is valid false with its parse error and no mode", async (t) => {
    const installer = await inProcessApp(t);
    assert.deepEqual(assertAnswers(route, 200, await installer.request(path, post(VALID_NODE_YAML, "application/yaml"))), { valid: true, errors: [], mode: "single-node", profile: "single-node" });
    const broken = assertAnswers(route, 200, await installer.request(path, post("mode: [single-node\n", "text/yaml")));
    assert.deepEqual([broken.valid, broken.mode, broken.profile, broken.errors.length], [false, undefined, "single-node", 1]);
    assert.match(broken.errors[0]!.message, /^YAML syntax error: /);
    assert.ok(broken.errors[0]!.line! >= 1 && broken.errors[0]!.column! >= 1, JSON.stringify(broken.errors));
  });

  // The validator quoted values with JSON.stringify, which escapes C0 only: an 8-bit CSI or a right-to-left override
  // pasted into a value was raw in the message a curl in a terminal shows.
  test("200: a value pasted with an 8-bit CSI or a bidi override is named in its message written out (\\u009b, \\u202e), for node.yaml and JSON alike", async (t) => {
    const installer = await inProcessApp(t);
    const yaml = assertAnswers(route, 200, await installer.request(path, post('mode: single-node\nhostname: "a\\x9b2J\u202eb"\n', "application/yaml")));
    const json = assertAnswers(route, 200, await installer.request(path, post({ ...VALID_DRAFT, hostname: "a\u009b2J\u202eb" })));
    for (const body of [yaml, json]) {
      const hostname = body.errors.find((e) => e.field === "hostname");
      assert.equal(hostname?.message, 'hostname "a\\u009b2J\\u202eb" is not a valid RFC 1123 hostname: it contains "\\u009b"; a hostname has only letters a-z, digits 0-9, "-" and dots between labels');
    }
  });

  // The message quotes a value written out already; the field named a key as it was pasted, raw in the answer.
  test("200: a key pasted with bidi controls, C1 or line separators is its error's field written out (\\u202e), the same once parsed, for node.yaml and JSON alike", async (t) => {
    const installer = await inProcessApp(t);
    const yaml = await installer.request(path, post(`${VALID_NODE_YAML}${yamlQuoted(UNPRINTABLE)}: 1\n`, "application/yaml"));
    const json = await installer.request(path, post({ ...VALID_DRAFT, [UNPRINTABLE]: 1 }));
    for (const reply of [yaml, json]) {
      assertAnswers(route, 200, reply);
      const body = assertPrintableJson(reply.text);
      assert.ok(body.errors.some((e: { field: string }) => e.field === UNPRINTABLE), reply.text);
    }
  });

  test("200: a key of 100 KB is named in its error's field cut short, saying how much, for node.yaml and JSON alike", async (t) => {
    const installer = await inProcessApp(t);
    const key = "k".repeat(100_000);
    // A plain YAML key is at most 1,024 characters; one in flow style (JSON is YAML) has no limit.
    const yaml = assertAnswers(route, 200, await installer.request(path, post(JSON.stringify({ mode: "single-node", [key]: 1 }), "application/yaml")));
    const json = assertAnswers(route, 200, await installer.request(path, post({ ...VALID_DRAFT, [key]: 1 })));
    for (const body of [yaml, json]) {
      const error = body.errors.find((e) => e.field.startsWith("kkk"));
      assert.equal(error?.field, `${"k".repeat(256)} … [cut 97.4 KiB]`, JSON.stringify(body.errors).slice(0, 500));
      assert.ok(String(error?.message).length < 200, error?.message);
    }
  });

  test("200: the release model drives the modes: a mode whose profile the release does not ship is a field error", async (t) => {
    const payload = join(await tempDir("stratum-validate-"), "payload");
    await makePayload(payload, { release: "2026.12.0", profiles: { "single-node": { enabled: true } } });
    const installer = await inProcessApp(t, { args: ["--payload", payload] });
    await installer.untilNoBlockers();
    const draft = INIT_DRAFT;
    const body = assertAnswers(route, 200, await installer.request(path, post(draft)));
    assert.deepEqual(body.errors.map((e) => e.field), ["mode"]);
  });

  // One nesting limit for a config however it comes: past it a JSON draft is refused (400, here as at PUT), a node.yaml is
  // invalid with one error (here and at PUT; test/e2e/config-cli.test.ts: `validate` too); at it, neither says a word of depth.
  test("a config nested past MAX_CONFIG_DEPTH: as JSON 400 as PUT answers it, as node.yaml the error PUT gives; at the limit judged as usual", async (t) => {
    const installer = await inProcessApp(t);
    const nested = (levels: number) => {
      let value: unknown = "x";
      for (let level = 2; level <= levels; level += 1) value = { a: value };
      return { ...VALID_DRAFT, extra: value };
    };
    const put = (body: AppRequestOptions["body"], contentType?: string): AppRequestOptions => ({ method: "PUT", body, contentType });
    const atLimit = nested(MAX_CONFIG_DEPTH);
    for (const [body, contentType] of [[atLimit, undefined], [JSON.stringify(atLimit), "application/yaml"]] as const) {
      const judged = assertAnswers(route, 200, await installer.request(path, post(body, contentType)));
      assert.ok(!judged.errors.some((e) => /nests/.test(e.message)), JSON.stringify(judged.errors));
    }

    const past = nested(MAX_CONFIG_DEPTH + 1);
    const refused = assertProblem(await installer.request("/v1/installer/config", put(past)), 400, "INVALID_REQUEST");
    assert.equal(refused.detail, `The config nests deeper than ${MAX_CONFIG_DEPTH} levels; node.yaml is a few levels deep.`);
    assert.equal(assertProblem(await installer.request(path, post(past)), 400, "INVALID_REQUEST").detail, refused.detail);
    const yaml = JSON.stringify(past);
    const judged = assertAnswers(route, 200, await installer.request(path, post(yaml, "application/yaml"))).errors;
    assert.deepEqual(judged.map((e) => e.message), [`node.yaml nests deeper than ${MAX_CONFIG_DEPTH} levels`]);
    assert.deepEqual((await installer.request("/v1/installer/config", put(yaml, "application/yaml"))).json.errors, judged);
  });

  test("400 INVALID_REQUEST: JSON that does not parse", async (t) => {
    await assertRefusedUnchanged(await inProcessApp(t), route, path, post('{"mode":'), 400, "INVALID_REQUEST", /^The body is not valid JSON/);
  });
  test("400 INVALID_REQUEST: an empty body", async (t) => {
    await assertRefusedUnchanged(await inProcessApp(t), route, path, post(""), 400, "INVALID_REQUEST", /^The body is empty/);
  });
  test("413 BODY_TOO_LARGE: a 2 MiB body", async (t) => {
    await assertRefusedUnchanged(await inProcessApp(t), route, path, post(JSON.stringify({ hostname: "x".repeat(2 * 1024 * 1024) })), 413, "BODY_TOO_LARGE");
  });
  test("the limit is 1 MiB (SPEC §3: bodies over 1 MiB → 413): a node.yaml of exactly 1 MiB is judged, one byte more is 413", async (t) => {
    const installer = await inProcessApp(t);
    const MIB = 1024 * 1024;
    const padded = (size: number) => `${VALID_NODE_YAML}# ${"x".repeat(size - Buffer.byteLength(VALID_NODE_YAML) - 3)}\n`;
    assert.equal(Buffer.byteLength(padded(MIB)), MIB);
    const judged = assertAnswers(route, 200, await installer.request(path, post(padded(MIB), "application/yaml")));
    assert.deepEqual([judged.valid, judged.errors], [true, []]);
    assertProblem(await installer.request(path, post(padded(MIB + 1), "application/yaml")), 413, "BODY_TOO_LARGE");
  });
  test("415 UNSUPPORTED_MEDIA_TYPE: text/plain", async (t) => {
    await assertRefusedUnchanged(await inProcessApp(t), route, path, post("mode: single-node\n", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE", /send a structured draft as application\/json, or a node\.yaml/);
  });
  test("415 UNSUPPORTED_MEDIA_TYPE: a gzip-encoded node.yaml (Content-Encoding), never judged as its compressed bytes", async (t) => {
    const request = { ...post(gzipSync(VALID_NODE_YAML), "application/yaml"), headers: { "content-encoding": "gzip" } };
    await assertRefusedUnchanged(await inProcessApp(t), route, path, request, 415, "UNSUPPORTED_MEDIA_TYPE", /^Content-Encoding gzip is not taken here: send the body as it is, without a Content-Encoding\.$/);
  });

  describeAuth(route, {
    path,
    request: post(VALID_DRAFT),
    breaks: (services) => {
      services.draft.validate = () => {
        throw new Error("validator broken at /var/lib/stratum/secret-path");
      };
    },
  });
});
