import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { inProcessApp, type AppOptions, type AppRequestOptions, type InProcessApp } from "../helpers/app.ts";
import { assertProblem, type ProblemExpectations } from "../helpers/problem.ts";
import type { Reply } from "../helpers/installer.ts";
import { noSpace } from "../helpers/full-disk.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";

const put = (body: string, contentType?: string): AppRequestOptions => ({ method: "PUT", body, contentType });

async function startAttempt(installer: InProcessApp): Promise<void> {
  await installer.untilNoBlockers();
  assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).status, 200);
  assert.equal((await installer.request("/v1/installer/install", { method: "POST" })).status, 202);
}

interface Row {
  name: string;
  options?: AppOptions;
  /** Brings the fresh app into the state the row needs. */
  given?: (installer: InProcessApp) => Promise<unknown>;
  path: string;
  request?: AppRequestOptions;
  status: number;
  code: string;
  expected?: ProblemExpectations;
  /** Further checks on the problem body. */
  then?: (body: any, installer: InProcessApp) => Promise<void> | void;
}

const ROWS: Row[] = [
  { name: "no install code", path: "/v1/installer/status", request: { code: null }, status: 401, code: "UNAUTHORIZED" },
  { name: "a wrong install code", path: "/v1/installer/status", request: { code: "AAAA-BBBB-CCCC" }, status: 401, code: "UNAUTHORIZED" },
  { name: "an empty Bearer", path: "/v1/installer/status", request: { code: null, headers: { authorization: "Bearer " } }, status: 401, code: "UNAUTHORIZED" },
  {
    name: "the right code after 5 wrong ones from that address",
    given: async (installer) => {
      for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}`, from: "127.0.0.7" });
    },
    path: "/v1/installer/status",
    request: { from: "127.0.0.7" },
    status: 429,
    code: "TOO_MANY_ATTEMPTS",
  },
  { name: "an unknown path under /v1/installer", path: "/v1/installer/nope", status: 404, code: "NOT_FOUND", expected: { detail: /^No endpoint GET \/v1\/installer\/nope\./ } },
  { name: "an unknown path outside it, without a code", path: "/nope", request: { code: null }, status: 404, code: "NOT_FOUND" },
  { name: "the verdict of an unknown attempt", path: "/v1/installer/install/verdict?attempt=7", status: 404, code: "NOT_FOUND" },
  { name: "the report of an unknown attempt", path: "/v1/installer/install/report?attempt=7", status: 404, code: "NOT_FOUND" },
  { name: "the events of an unknown attempt", path: "/v1/installer/install/events?attempt=7", status: 404, code: "NOT_FOUND" },
  { name: "an attempt that is not a number", path: "/v1/installer/install/events?attempt=x", status: 400, code: "INVALID_REQUEST" },
  {
    name: "JSON that does not parse",
    path: "/v1/installer/config",
    request: put('{\n  "mode": "single-node",\n  "hostname": "node-01",,\n}'),
    status: 400,
    code: "INVALID_REQUEST",
    expected: { detail: /^The body is not valid JSON \(line 3, column 25\): / },
  },
  { name: "an empty JSON body", path: "/v1/installer/config", request: put(""), status: 400, code: "INVALID_REQUEST", expected: { detail: /^The body is empty/ } },
  { name: "a JSON array", path: "/v1/installer/config", request: put("[1,2]"), status: 400, code: "INVALID_REQUEST" },
  {
    name: "a PATCH on a raw node.yaml draft",
    given: (installer) => installer.request("/v1/installer/config", put(VALID_NODE_YAML, "application/yaml")),
    path: "/v1/installer/config",
    request: { method: "PATCH", body: { hostname: "x" } },
    status: 400,
    code: "INVALID_REQUEST",
    expected: { detail: /PUT/ },
  },
  { name: "a body over 1 MiB", path: "/v1/installer/config", request: put(JSON.stringify({ hostname: "x".repeat(2 * 1024 * 1024) })), status: 413, code: "BODY_TOO_LARGE" },
  { name: "a text/plain draft", path: "/v1/installer/config", request: put("hello", "text/plain"), status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  { name: "a form body", path: "/v1/installer/config", request: put("a=b", "application/x-www-form-urlencoded"), status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  {
    name: "a Content-Type named like an Object.prototype member",
    path: "/v1/installer/config",
    request: put('{"mode":"single-node"}', "constructor"),
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "a body without a Content-Type",
    path: "/v1/installer/config",
    request: { method: "PUT", body: '{"mode":"single-node"}', contentType: null },
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    expected: { detail: /^A body without a Content-Type is not taken here/ },
  },
  {
    name: "a PUT whose If-Match is not the draft's ETag",
    given: (installer) => installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT }),
    path: "/v1/installer/config",
    request: { method: "PUT", body: { hostname: "x" }, headers: { "if-match": '"stale"' } },
    status: 412,
    code: "PRECONDITION_FAILED",
  },
  {
    name: "a node.yaml PUT whose If-Match is not the draft's ETag",
    path: "/v1/installer/config/node.yaml",
    request: { method: "PUT", body: VALID_NODE_YAML, contentType: "application/yaml", headers: { "if-match": '"stale"' } },
    status: 412,
    code: "PRECONDITION_FAILED",
  },
  { name: "an empty node.yaml", path: "/v1/installer/config/node.yaml", request: put("", "application/yaml"), status: 400, code: "INVALID_REQUEST", expected: { detail: /^The body is empty/ } },
  {
    name: "a JSON draft PUT as a node.yaml",
    path: "/v1/installer/config/node.yaml",
    request: put('{"mode":"single-node"}', "application/json"),
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    expected: { detail: /^Content-Type application\/json is not taken here: send the node\.yaml as application\/yaml or text\/yaml\.$/ },
  },
  {
    name: "a PATCH whose If-Match is not the draft's ETag",
    path: "/v1/installer/config",
    request: { method: "PATCH", body: { hostname: "x" }, headers: { "if-match": '"stale"' } },
    status: 412,
    code: "PRECONDITION_FAILED",
  },
  {
    name: "an install of a draft that does not validate",
    given: (installer) => installer.request("/v1/installer/config", { method: "PUT", body: { mode: "single-node" } }),
    path: "/v1/installer/install",
    request: { method: "POST" },
    status: 422,
    code: "INVALID_CONFIG",
    then: async (body, installer) => {
      assert.ok(body.errors.some((e: any) => e.field === "hostname"), JSON.stringify(body.errors));
      assert.deepEqual(body.errors, (await installer.request("/v1/installer/config")).json.errors, "the draft's own errors");
    },
  },
  { name: "the node.yaml of a draft that does not validate", path: "/v1/installer/config/node.yaml", status: 422, code: "INVALID_CONFIG" },
  {
    name: "an install while no payload is loaded",
    options: { payload: false },
    given: (installer) => installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT }),
    path: "/v1/installer/install",
    request: { method: "POST" },
    status: 409,
    code: "INSTALL_BLOCKED",
    then: (body) => assert.deepEqual(body.blockers.map((b: any) => b.code), ["PAYLOAD_NOT_LOADED"]),
  },
  { name: "an install while one runs", given: startAttempt, path: "/v1/installer/install", request: { method: "POST" }, status: 409, code: "INSTALL_RUNNING" },
  { name: "a draft change while an install runs", given: startAttempt, path: "/v1/installer/config", request: { method: "PATCH", body: { hostname: "node-02" } }, status: 409, code: "INSTALL_RUNNING" },
  { name: "a node.yaml while an install runs", given: startAttempt, path: "/v1/installer/config/node.yaml", request: put(VALID_NODE_YAML, "application/yaml"), status: 409, code: "INSTALL_RUNNING" },
  { name: "the verdict of the attempt that runs", given: startAttempt, path: "/v1/installer/install/verdict", status: 409, code: "INSTALL_RUNNING" },
  { name: "a readiness recheck before any attempt", path: "/v1/installer/install/recheck-readiness", request: { method: "POST" }, status: 409, code: "RECHECK_NOT_APPLICABLE" },
];

/** What a refused request must leave as it was. */
async function snapshot(installer: InProcessApp) {
  const config = await installer.request("/v1/installer/config", { from: "127.0.0.99" });
  const status = await installer.request("/v1/installer/status", { from: "127.0.0.99" });
  return { etag: config.headers.etag, attempt: status.json.attempt };
}

describe("createApp: every error path answers problem+json (SPEC §4) and changes nothing", () => {
  for (const row of ROWS) {
    test(`${row.name} → ${row.status} ${row.code}`, async (t) => {
      const installer = await inProcessApp(t, row.options);
      await row.given?.(installer);
      const before = await snapshot(installer);
      const body = assertProblem(await installer.request(row.path, row.request), row.status, row.code, row.expected);
      await row.then?.(body, installer);
      assert.deepEqual(await snapshot(installer), before);
    });
  }

  test("a lockout's 429 says when to retry", async (t) => {
    const installer = await inProcessApp(t);
    for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}` });
    const locked = await installer.request("/v1/installer/status");
    assertProblem(locked, 429, "TOO_MANY_ATTEMPTS");
    const retryAfter = Number(locked.headers["retry-after"]);
    assert.ok(retryAfter > 25 && retryAfter <= 30, `Retry-After ${retryAfter}`);
  });

  // Hono decodes the path: a problem that names it was JSON.stringify'd, which escapes C0 only.
  test("a path holding bidi controls, C1 or line separators → 404 naming it written out (\\u202e), the same path once parsed", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request(`/v1/installer/${encodeURIComponent(UNPRINTABLE)}`);
    assertProblem(reply, 404, "NOT_FOUND");
    assert.equal(assertPrintableJson(reply.text).detail, `No endpoint GET /v1/installer/${UNPRINTABLE}. /openapi.json lists every route.`);
  });

  test("a failure inside a service → 500 INTERNAL naming the request id, no internals; the log has the error", async (t) => {
    const installer = await inProcessApp(t);
    installer.services.status = () => {
      throw new Error("disk on fire at /var/lib/stratum/secret-path");
    };
    const body = assertProblem(await installer.request("/v1/installer/status"), 500, "INTERNAL");
    assert.equal(body.detail, `The installer failed to answer; the log has request id ${body.requestId}.`);
    const logged = installer.log.map((line) => JSON.parse(line)).find((entry) => entry.message === "request failed");
    assert.equal(logged?.requestId, body.requestId);
    assert.match(logged.error, /disk on fire/);
  });

  test("a state dir that refuses a write → 507, and one error line naming the request and the client", async (t) => {
    const installer = await inProcessApp(t);
    installer.services.draft.replace = async () => {
      throw noSpace(installer.stateDir);
    };
    const body = assertProblem(await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT, from: "::ffff:127.0.0.5" }), 507, "INSUFFICIENT_STORAGE");
    const logged = installer.log.map((line) => JSON.parse(line)).filter((entry) => entry.level === "error");
    assert.deepEqual(logged.map(({ time: _time, ...entry }) => entry), [
      { level: "error", message: "state dir write failed", requestId: body.requestId, client: "127.0.0.5", method: "PUT", path: "/v1/installer/config", detail: body.detail },
    ]);
  });
});

describe("createApp: caching", () => {
  test("every answer under /v1/installer says Cache-Control: no-store (drafts, node.yaml, the review and the join token carry secrets); the public ones do not", async (t) => {
    const installer = await inProcessApp(t);
    const answers = {
      "GET /config": await installer.request("/v1/installer/config"),
      "PUT /config": await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT }),
      "GET /config/node.yaml": await installer.request("/v1/installer/config/node.yaml"),
      "GET /config/review": await installer.request("/v1/installer/config/review"),
      "GET /cluster/join-token (404 here)": await installer.request("/v1/installer/cluster/join-token"),
      "GET /status": await installer.request("/v1/installer/status"),
      "401": await installer.request("/v1/installer/config", { code: null }),
    };
    for (const [what, reply] of Object.entries(answers)) assert.equal(reply.headers["cache-control"], "no-store", what);
    assert.notEqual((await installer.request("/healthz")).headers["cache-control"], "no-store");
  });
});

describe("createApp: the same security headers on every kind of answer", () => {
  /** The headers every answer carries whatever it is (X-Request-Id aside: it is each answer's own). */
  const SECURITY = ["cross-origin-opener-policy", "cross-origin-resource-policy", "origin-agent-cluster", "referrer-policy", "x-content-type-options", "x-dns-prefetch-control", "x-download-options", "x-frame-options", "x-permitted-cross-domain-policies", "x-xss-protection"];
  const securityOf = (headers: Record<string, unknown>) => Object.fromEntries(SECURITY.map((name) => [name, headers[name]]));

  test("a route with one handler (200 /status, /healthz), a validated route (200, 400), 401, 404 in and outside /v1/installer, 413, 415, 429 and 500 carry one set, and their own X-Request-Id", async (t) => {
    const installer = await inProcessApp(t);
    const status = await installer.request("/v1/installer/status");
    assert.equal(status.status, 200);
    const expected = securityOf(status.headers);
    assert.deepEqual(Object.values(expected).filter((value) => value === undefined), [], "200 /status carries every one");
    assert.equal(status.headers["strict-transport-security"], undefined, "no HSTS: the certificate is self-signed");
    const answers: [string, number, Promise<Reply>][] = [
      ["GET /healthz", 200, installer.request("/healthz", { code: null })],
      ["the events of an unknown attempt (a validated route)", 404, installer.request("/v1/installer/install/events?attempt=7")],
      ["POST /config/validate", 200, installer.request("/v1/installer/config/validate", { method: "POST", body: VALID_DRAFT })],
      ["an attempt that is not a number", 400, installer.request("/v1/installer/install/events?attempt=x")],
      ["JSON that does not parse", 400, installer.request("/v1/installer/config", put("{"))],
      ["no code", 401, installer.request("/v1/installer/status", { code: null, from: "127.0.0.20" })],
      ["no code on a validated route", 401, installer.request("/v1/installer/install/events?attempt=x", { code: null, from: "127.0.0.20" })],
      ["an unknown path under /v1/installer", 404, installer.request("/v1/installer/nope")],
      ["an unknown path outside it", 404, installer.request("/nope", { code: null })],
      ["a body over 1 MiB", 413, installer.request("/v1/installer/config", put(JSON.stringify({ hostname: "x".repeat(2 * 1024 * 1024) })))],
      ["a text/plain draft", 415, installer.request("/v1/installer/config", put("hello", "text/plain"))],
    ];
    for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}`, from: "127.0.0.21" });
    answers.push(["locked out", 429, installer.request("/v1/installer/status", { from: "127.0.0.21" })]);
    const ids = new Set([status.headers["x-request-id"]]);
    for (const [what, code, pending] of answers) {
      const reply = await pending;
      assert.equal(reply.status, code, `${what}: ${reply.text.slice(0, 200)}`);
      assert.deepEqual(securityOf(reply.headers), expected, what);
      assert.equal(reply.headers["strict-transport-security"], undefined, what);
      const id = String(reply.headers["x-request-id"]);
      assert.ok(!ids.has(id), `${what}: its own X-Request-Id`);
      ids.add(id);
      if (code >= 400) assert.equal(reply.json.requestId, id, `${what}: the problem's requestId is the header's`);
    }
    installer.services.status = () => {
      throw new Error("boom");
    };
    const failed = await installer.request("/v1/installer/status");
    assert.equal(failed.status, 500);
    assert.deepEqual(securityOf(failed.headers), expected, "500");
    assert.equal(failed.json.requestId, failed.headers["x-request-id"], "500: the problem's requestId is the header's");
  });
});
