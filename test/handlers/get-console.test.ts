import assert from "node:assert/strict";
import { test } from "node:test";
import { CONSOLE_HTML } from "../../build/console-assets.ts";
import definition from "../../handlers/get-console.ts";
import { inProcessApp } from "../helpers/app.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

test("GET /: 200 the console's page as text/html, no-cache, under the page's Content-Security-Policy, without a code and from a locked-out address", async (t) => {
  const installer = await inProcessApp(t);
  for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}`, from: "127.0.0.7" });
  for (const options of [{ code: null }, { code: "AAAA-BBBB-CCCC" }, { from: "127.0.0.7" }]) {
    const reply = await installer.request("/", options);
    assert.equal(assertAnswers(definition, 200, reply), CONSOLE_HTML);
    assert.equal(reply.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(reply.headers["cache-control"], "no-cache");
    assert.equal(reply.headers["content-security-policy"], POLICY);
  }
});
