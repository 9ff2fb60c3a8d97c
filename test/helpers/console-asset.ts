import assert from "node:assert/strict";
import { test } from "node:test";
import type { RouteConfig } from "@hono/zod-openapi";
import { inProcessApp } from "./app.ts";
import { assertAnswers } from "./route-schema.ts";

const POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface ConsoleAsset {
  route: RouteConfig | { route: RouteConfig };
  path: string;
  /** What the test's name calls it: page, script, stylesheet. */
  what: string;
  body: string;
  type: string;
}

/** The console's files are public: each answers 200 to anyone (no code, a wrong one, a locked-out address), no-cache, under the page's CSP. */
export function testConsoleAsset({ route, path, what, body, type }: ConsoleAsset): void {
  test(`GET ${path}: 200 the console's ${what} as ${type}, no-cache, under the page's Content-Security-Policy, without a code and from a locked-out address`, async (t) => {
    const installer = await inProcessApp(t);
    for (let i = 0; i < 5; i++) await installer.request("/v1/installer/status", { code: `WRNG-${i}`, from: "127.0.0.7" });
    for (const options of [{ code: null }, { code: "AAAA-BBBB-CCCC" }, { from: "127.0.0.7" }]) {
      const reply = await installer.request(path, options);
      assert.equal(assertAnswers(route, 200, reply), body);
      assert.equal(reply.headers["content-type"], `${type}; charset=utf-8`);
      assert.equal(reply.headers["cache-control"], "no-cache");
      assert.equal(reply.headers["content-security-policy"], POLICY);
    }
  });
}
