import assert from "node:assert/strict";
import { test } from "node:test";
import { inProcessApp } from "../helpers/app.ts";

const NO_CODE = 'Bearer realm="stratum-installer"';
const WRONG_CODE = 'Bearer realm="stratum-installer", error="invalid_token", error_description="The install code is wrong"';

test("every 401 says WWW-Authenticate: Bearer (RFC 6750), with invalid_token only when a code was sent", async (t) => {
  const installer = await inProcessApp(t);
  const challenge = async (path: string, options: Parameters<typeof installer.request>[1]) => {
    const reply = await installer.request(path, options);
    assert.equal(reply.status, 401, `${path}: ${reply.text}`);
    return reply.headers["www-authenticate"];
  };
  assert.equal(await challenge("/v1/installer/status", { code: null }), NO_CODE);
  assert.equal(await challenge("/v1/installer/status", { code: null, headers: { authorization: "Bearer " } }), NO_CODE);
  assert.equal(await challenge("/v1/installer/config", { code: "AAAA-BBBB-CCCC", method: "PUT", body: {} }), WRONG_CODE);
  assert.equal(await challenge("/v1/installer/install/events", { code: null, headers: { authorization: "AAAA-BBBB-CCCC" } }), WRONG_CODE);
  assert.equal(await challenge("/v1/installer/nope", { code: null }), NO_CODE);
});

test("no challenge on answers that are not 401", async (t) => {
  const installer = await inProcessApp(t);
  for (const [path, code] of [["/v1/installer/status", undefined], ["/healthz", null], ["/schemas/node.yaml.json", null]] as const) {
    const reply = await installer.request(path, { code });
    assert.equal(reply.status, 200, path);
    assert.equal(reply.headers["www-authenticate"], undefined, path);
  }
  for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}`, from: "127.0.0.9" });
  const locked = await installer.request("/v1/installer/status", { from: "127.0.0.9" });
  assert.equal(locked.status, 429);
  assert.equal(locked.headers["www-authenticate"], undefined);
});
