import assert from "node:assert/strict";
import { describe, test } from "node:test";
import route from "../../handlers/get-config.ts";
import putConfig from "../../handlers/put-config.ts";
import { inProcessApp } from "../helpers/app.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";

const path = "/v1/installer/config";

describe("GET /v1/installer/config", () => {
  test("200 before any PUT: an empty structured draft that does not validate, never updated, with an ETag", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request(path);
    const body = assertAnswers(route, 200, reply);
    assert.deepEqual({ ...body, errors: [] }, { source: "structured", config: {}, valid: false, errors: [], updatedAt: null });
    assert.ok(body.errors.some((e) => e.field === "hostname"), JSON.stringify(body.errors));
    assert.match(String(reply.headers.etag), /^".+"$/);
  });

  test("200: the draft as the last PUT stored it, secrets included, with the same ETag", async (t) => {
    const installer = await inProcessApp(t);
    const draft = { ...VALID_DRAFT, cluster: { joinToken: "jt-SECRET-4711-token" } };
    const put = await installer.request(path, { method: "PUT", body: draft });
    const stored = assertAnswers(putConfig, 200, put);
    const reply = await installer.request(path);
    assert.deepEqual(assertAnswers(route, 200, reply), stored);
    assert.deepEqual(stored.config, draft);
    assert.equal(reply.headers.etag, put.headers.etag);
  });

  test("200: a draft's bidi controls, C1 and line separators come back written out (\\u202e, \\u0085), the same draft once parsed", async (t) => {
    const installer = await inProcessApp(t);
    const draft = { ...VALID_DRAFT, hostname: UNPRINTABLE, network: { ...VALID_DRAFT.network, [UNPRINTABLE]: [UNPRINTABLE] } };
    assertAnswers(putConfig, 200, await installer.request(path, { method: "PUT", body: draft }));
    const reply = await installer.request(path);
    assertAnswers(route, 200, reply);
    assert.deepEqual(assertPrintableJson(reply.text).config, draft);
  });

  describeAuth(route, {
    path,
    breaks: (services) => {
      services.draft.view = () => {
        throw new Error("draft unreadable at /var/lib/stratum/secret-path");
      };
    },
  });
});
