import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { describe, test } from "node:test";
import getConfig from "../../handlers/get-config.ts";
import postValidate from "../../handlers/post-config-validate.ts";
import route from "../../handlers/put-config.ts";
import { inProcessApp, type AppRequestOptions, type InProcessApp } from "../helpers/app.ts";
import { installedApp, startAttempt } from "../helpers/attempt.ts";
import { assertRefusedUnchanged } from "../helpers/draft-route.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { noSpace } from "../helpers/full-disk.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";

const path = "/v1/installer/config";
const put = (body: AppRequestOptions["body"], contentType?: string | null, headers?: Record<string, string>): AppRequestOptions => ({ method: "PUT", body, contentType, headers });

async function status(installer: InProcessApp) {
  return (await installer.request("/v1/installer/status")).json;
}

const refusedChangesNothing = (installer: InProcessApp, request: AppRequestOptions, status: number, code: string, detail?: RegExp) =>
  assertRefusedUnchanged(installer, route, path, request, status, code, detail);

describe("PUT /v1/installer/config", () => {
  test("200: a valid structured draft is stored as sent, with a new ETag", async (t) => {
    const installer = await inProcessApp(t);
    const before = await installer.request(path);
    const reply = await installer.request(path, put(VALID_DRAFT));
    const body = assertAnswers(route, 200, reply);
    assert.deepEqual({ ...body, updatedAt: null }, { source: "structured", config: VALID_DRAFT, valid: true, errors: [], updatedAt: null });
    assert.ok(Date.parse(String(body.updatedAt)) > 0, String(body.updatedAt));
    assert.notEqual(reply.headers.etag, before.headers.etag);
  });

  test("200: a half-filled draft is stored with every problem by path; status follows it", async (t) => {
    const installer = await inProcessApp(t);
    const half = { mode: "hyperconverged-init", hostname: "-bad-", network: { interface: "eth9", address: "10.20.0.11/24", gateway: "10.30.0.1", floatingIpCidrs: ["10.20.0.0/25", "203.0.113.0/33"] }, storge: {} };
    const body = assertAnswers(route, 200, await installer.request(path, put(half)));
    assert.deepEqual([body.source, body.config, body.valid], ["structured", half, false]);
    const fields = body.errors.map((e) => e.field);
    for (const field of ["hostname", "network.interface", "network.gateway", "network.floatingIpCidrs[0]", "network.floatingIpCidrs[1]", "network.vip", "cluster.name", "storage.osdDevices", "storge", "admin"]) {
      assert.ok(fields.includes(field), `${field} in ${fields.join(", ")}`);
    }
    assert.match(String(body.errors.find((e) => e.field === "storge")?.hint), /storage/);
    const now = await status(installer);
    assert.deepEqual([now.configValid, now.mode, now.profile, now.hostname], [false, "hyperconverged-init", "hyperconverged", "-bad-"]);
  });

  // JSON.stringify escapes C0 only: a right-to-left override, an isolate, NEL or U+2028 in the draft came back raw, and
  // a curl to a terminal showed the rest of the line reordered or obeyed.
  test("200: a draft's bidi controls, C1 and line separators, in a value and in a key, come back written out (\\u202e), the same draft once parsed", async (t) => {
    const installer = await inProcessApp(t);
    const draft = { ...VALID_DRAFT, hostname: UNPRINTABLE, [`x${UNPRINTABLE}`]: UNPRINTABLE };
    const reply = await installer.request(path, put(draft));
    assertAnswers(route, 200, reply);
    const body = assertPrintableJson(reply.text);
    assert.deepEqual(body.config, draft);
    assert.ok(body.errors.some((e: { field: string }) => e.field === `x${UNPRINTABLE}`), reply.text);
  });

  // A node.yaml in JSON's flow style (or a JSON draft) may have a key as long as the body; the message quotes it cut.
  test("200: a key of 100 KB is named in its error's field cut short, saying how much (as `validate` prints it)", async (t) => {
    const installer = await inProcessApp(t);
    const key = "k".repeat(100_000);
    const body = assertAnswers(route, 200, await installer.request(path, put({ ...VALID_DRAFT, [key]: 1 })));
    const error = body.errors.find((e) => e.field.startsWith("kkk"));
    assert.match(String(error?.field), /^k{256} … \[cut 97\.4 KiB\]$/);
    assert.ok(Object.hasOwn(body.config ?? {}, key), "the draft keeps its key");
  });

  test("200: a raw node.yaml is kept verbatim, with line:column errors by node.yaml key", async (t) => {
    const installer = await inProcessApp(t);
    const yaml = "# rack 4, slot 2\nmode: single-node\nhostname: node-01\nnetwork:\n  interface: eno1\n  address: 10.20.0.11/24\n  gateway: 10.20.0.1\n  floating_ip_cidrs:\n    - 203.0.113.0/24\n    - 10.20.0.0/16\n";
    const body = assertAnswers(route, 200, await installer.request(path, put(yaml, "application/yaml")));
    assert.deepEqual([body.source, body.yaml, body.config], ["yaml", yaml, undefined]);
    const overlap = body.errors.find((e) => e.field === "network.floating_ip_cidrs[1]");
    assert.deepEqual([overlap?.line, overlap?.column], [10, 7], JSON.stringify(body.errors));
    assert.equal((await status(installer)).mode, "single-node");
    assert.deepEqual(assertAnswers(getConfig, 200, await installer.request(path)), body);
  });

  test("200: a raw node.yaml with an unknown mode: status has no mode, profile single-node", async (t) => {
    const installer = await inProcessApp(t);
    assertAnswers(route, 200, await installer.request(path, put("mode: galaxy\n", "text/yaml")));
    const now = await status(installer);
    assert.deepEqual([now.mode, now.profile], [undefined, "single-node"]);
  });

  test("200: a half-edited node.yaml that does not parse is stored (SPEC §9): its parse error at line and column, no mode, and no install", async (t) => {
    const installer = await inProcessApp(t);
    const yaml = "# rack 4, slot 2\nmode: single-node\nhostname: node-07\nnetwork:\n  interface: eno1\n   address: 10.20.0.11/24\n  gateway: \"10.20.0.1\nadmin:\n  ssh_authorized_keys: []\n";
    const reply = await installer.request(path, put(yaml, "application/yaml"));
    const body = assertAnswers(route, 200, reply);
    assert.deepEqual([body.source, body.yaml, body.valid, body.errors.length], ["yaml", yaml, false, 1], JSON.stringify(body.errors));
    const [error] = body.errors;
    assert.deepEqual(Object.keys(error!).sort(), ["column", "field", "line", "message"]);
    assert.equal(error!.field, "");
    assert.match(error!.message, /^YAML syntax error: /);
    assert.ok(error!.line! >= 5 && error!.line! <= 7 && error!.column! >= 1, JSON.stringify(error));

    const get = await installer.request(path);
    assert.deepEqual(assertAnswers(getConfig, 200, get), body);
    assert.equal(get.headers.etag, reply.headers.etag);
    const now = await status(installer);
    assert.deepEqual([now.mode, now.profile, now.configValid], [undefined, "single-node", false]);
    assert.equal(now.hostname, "node-01", "the machine's own hostname: the draft names none that can be read");

    const validate = await installer.request("/v1/installer/config/validate", { method: "POST", body: yaml, contentType: "text/yaml" });
    assert.deepEqual(assertAnswers(postValidate, 200, validate), { valid: false, errors: body.errors, profile: "single-node" });
    assertProblem(await installer.request("/v1/installer/install", { method: "POST" }), 422, "INVALID_CONFIG", { errors: body.errors });
    assertProblem(await installer.request("/v1/installer/config/node.yaml"), 422, "INVALID_CONFIG");
    assert.equal((await status(installer)).attempt, 0);
  });

  const ALIAS_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
  for (const [name, yaml, message] of [
    ["an unclosed flow sequence", "mode: [single-node\n", /^YAML syntax error: /],
    ["an alias bomb", ALIAS_BOMB, /aliases/],
    ["a duplicate key", "hostname: a\nhostname: b\n", /key hostname appears twice/],
    ["nesting over the limit", `mode: single-node\nnetwork: ${"[".repeat(5_000)}${"]".repeat(5_000)}\n`, /nests deeper than 32 levels/],
    ["a list, not a mapping", "- mode: single-node\n", /must be a mapping/],
    ["only a comment", "# to be written\n", /node\.yaml is empty/],
  ] as const) {
    test(`200: a node.yaml with ${name} is stored, valid false, the problem at line and column; status and node.yaml still answer`, async (t) => {
      const installer = await inProcessApp(t);
      const body = assertAnswers(route, 200, await installer.request(path, put(yaml, "application/yaml")));
      assert.deepEqual([body.valid, body.yaml], [false, yaml]);
      // Among the others a node.yaml that parses has (a duplicate key is reported with them: every problem at once).
      const error = body.errors.find((e) => message.test(e.message));
      assert.ok(error && error.line! >= 1 && error.column! >= 1, JSON.stringify(body.errors));
      const now = await status(installer);
      assert.deepEqual([now.mode, now.profile, now.configValid], [undefined, "single-node", false]);
      assertProblem(await installer.request("/v1/installer/config/node.yaml"), 422, "INVALID_CONFIG");
    });
  }

  describe("refused, the draft unchanged", () => {
    const given = async (t: Parameters<typeof inProcessApp>[0]) => {
      const installer = await inProcessApp(t);
      assertAnswers(route, 200, await installer.request(path, put(VALID_DRAFT)));
      return installer;
    };

    test("400 INVALID_REQUEST: JSON that does not parse, naming line and column", async (t) => {
      await refusedChangesNothing(await given(t), put('{\n  "mode": "single-node",\n  "hostname": "node-01",,\n}'), 400, "INVALID_REQUEST", /^The body is not valid JSON \(line 3, column 25\): /);
    });
    test("400 INVALID_REQUEST: a key given twice (JSON.parse would keep the last unsaid), naming line and column", async (t) => {
      await refusedChangesNothing(await given(t), put('{\n  "mode": "single-node",\n  "hostname": "node-01",\n  "hostname": "node-02"\n}'), 400, "INVALID_REQUEST", /^The body holds a key twice \(line 4, column 3\): "hostname" is given twice/);
    });
    test("400 INVALID_REQUEST: a truncated JSON body", async (t) => {
      await refusedChangesNothing(await given(t), put('{"mode":'), 400, "INVALID_REQUEST");
    });
    test("400 INVALID_REQUEST: an empty body", async (t) => {
      await refusedChangesNothing(await given(t), put(""), 400, "INVALID_REQUEST", /^The body is empty/);
    });
    test("400 INVALID_REQUEST: a JSON array", async (t) => {
      await refusedChangesNothing(await given(t), put("[1,2]"), 400, "INVALID_REQUEST");
    });
    test("409 INSTALL_RUNNING while an attempt runs", async (t) => {
      const installer = await inProcessApp(t);
      await startAttempt(installer);
      await refusedChangesNothing(installer, put({ ...VALID_DRAFT, hostname: "node-02" }), 409, "INSTALL_RUNNING");
    });
    test("409 ALREADY_INSTALLED once the node is installed", async (t) => {
      await refusedChangesNothing(await installedApp(t), put({ ...VALID_DRAFT, hostname: "node-02" }), 409, "ALREADY_INSTALLED");
    });
    test("412 PRECONDITION_FAILED: an If-Match that is not the draft's ETag; the right one is taken", async (t) => {
      const installer = await given(t);
      await refusedChangesNothing(installer, put({ hostname: "x" }, undefined, { "if-match": '"stale"' }), 412, "PRECONDITION_FAILED");
      assert.deepEqual((await installer.request(path)).json.config, VALID_DRAFT);
      const etag = String((await installer.request(path)).headers.etag);
      assertAnswers(route, 200, await installer.request(path, put({ ...VALID_DRAFT, timezone: "UTC" }, undefined, { "if-match": etag })));
    });
    test("200 for a stale If-Match when the draft already is the one sent (a retry whose first answer was lost, RFC 9110 §13.1.1): nothing changes; another draft is still 412", async (t) => {
      const installer = await given(t);
      const first = await installer.request(path);
      const changed = { ...VALID_DRAFT, timezone: "UTC" };
      const sent = await installer.request(path, put(changed, undefined, { "if-match": String(first.headers.etag) }));
      assertAnswers(route, 200, sent);
      // The same PUT again, with the ETag it was sent with (its answer never came back).
      const again = await installer.request(path, put(changed, undefined, { "if-match": String(first.headers.etag) }));
      assert.deepEqual(assertAnswers(route, 200, again), assertAnswers(route, 200, sent));
      assert.equal(again.headers.etag, sent.headers.etag);
      await refusedChangesNothing(installer, put({ ...changed, hostname: "node-09" }, undefined, { "if-match": String(first.headers.etag) }), 412, "PRECONDITION_FAILED");
    });
    test("413 BODY_TOO_LARGE: a 2 MiB body", async (t) => {
      await refusedChangesNothing(await given(t), put(JSON.stringify({ hostname: "x".repeat(2 * 1024 * 1024) })), 413, "BODY_TOO_LARGE");
    });
    for (const [name, contentType, detail] of [
      ["a form body", "application/x-www-form-urlencoded", undefined],
      ["text/plain", "text/plain", undefined],
      ["a Content-Type named like an Object.prototype member", "constructor", undefined],
      ["a body without a Content-Type", null, /^A body without a Content-Type is not taken here/],
    ] as const) {
      test(`415 UNSUPPORTED_MEDIA_TYPE: ${name}`, async (t) => {
        await refusedChangesNothing(await given(t), put('{"mode":"single-node"}', contentType), 415, "UNSUPPORTED_MEDIA_TYPE", detail);
      });
    }
    // Which media types are taken is said before the body's bytes are read as text: a file sent as it is (a tarball,
    // a UTF-16 node.yaml from an editor) is told what to send, not that it is no UTF-8.
    for (const [name, contentType, detail] of [
      ["binary bytes as application/octet-stream", "application/octet-stream", /^Content-Type application\/octet-stream is not taken here: send a structured draft as application\/json/],
      ["binary bytes without a Content-Type", null, /^A body without a Content-Type is not taken here/],
    ] as const) {
      test(`415 UNSUPPORTED_MEDIA_TYPE: ${name}, not a 400 for its bytes`, async (t) => {
        await refusedChangesNothing(await given(t), put(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x80]), contentType), 415, "UNSUPPORTED_MEDIA_TYPE", detail);
      });
    }
    for (const [name, body, contentType] of [
      ["a gzip-encoded JSON draft", gzipSync(JSON.stringify(VALID_DRAFT)), "application/json"],
      ["a gzip-encoded node.yaml, never stored as its compressed bytes", gzipSync("mode: single-node\n"), "text/yaml"],
    ] as const) {
      test(`415 UNSUPPORTED_MEDIA_TYPE: ${name} (Content-Encoding)`, async (t) => {
        await refusedChangesNothing(await given(t), put(body, contentType, { "content-encoding": "gzip" }), 415, "UNSUPPORTED_MEDIA_TYPE", /^Content-Encoding gzip is not taken here: send the body as it is, without a Content-Encoding\.$/);
      });
    }
    test("415 for a Content-Encoding says which coding is taken (Accept-Encoding: identity, RFC 9110 §12.5.3), where a 415 for the media type does not", async (t) => {
      const installer = await given(t);
      const coded = await installer.request(path, put(gzipSync(JSON.stringify(VALID_DRAFT)), "application/json", { "content-encoding": "gzip" }));
      assert.equal(coded.status, 415);
      assert.equal(coded.headers["accept-encoding"], "identity");
      const typed = await installer.request(path, put('{"mode":"single-node"}', "text/plain"));
      assert.equal(typed.status, 415);
      assert.equal(typed.headers["accept-encoding"], undefined);
    });
    test("507 INSUFFICIENT_STORAGE: a state dir that refuses the write", async (t) => {
      const installer = await given(t);
      installer.services.draft.replace = async () => {
        throw noSpace(installer.stateDir);
      };
      await refusedChangesNothing(installer, put({ ...VALID_DRAFT, hostname: "node-02" }), 507, "INSUFFICIENT_STORAGE");
    });
  });

  describeAuth(route, {
    path,
    request: put(VALID_DRAFT),
    breaks: (services) => {
      services.draft.replace = async () => {
        throw new Error("draft store broken at /var/lib/stratum/secret-path");
      };
    },
  });
});
