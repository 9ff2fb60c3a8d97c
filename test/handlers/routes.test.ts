import assert from "node:assert/strict";
import { test } from "node:test";
import { ROUTES } from "../../handlers/index.ts";
import { inProcessApp } from "../helpers/app.ts";

test("each route is registered under its definition's own method and path", async () => {
  for (const entry of ROUTES) {
    const { route } = await entry.load();
    assert.deepEqual([entry.method, entry.path], [route.method, route.path]);
  }
  assert.equal(new Set(ROUTES.map((e) => `${e.method} ${e.path}`)).size, ROUTES.length, "no route twice");
});

test("only /healthz and /status are built at start; another route is built once, on its first request", async (t) => {
  assert.deepEqual(ROUTES.filter((e) => e.built).map((e) => e.path), ["/healthz", "/v1/installer/status"]);
  const options = ROUTES.find((e) => e.path === "/v1/installer/options")!;
  const load = options.load;
  let loads = 0;
  options.load = () => (loads++, load());
  t.after(() => (options.load = load));

  const installer = await inProcessApp(t);
  assert.equal((await installer.request("/v1/installer/status")).status, 200);
  assert.equal(loads, 0, "not built by the app's start nor by another route");
  const replies = await Promise.all([1, 2, 3].map(() => installer.request("/v1/installer/options")));
  assert.deepEqual(replies.map((r) => r.status), [200, 200, 200]);
  assert.equal((await installer.request("/v1/installer/options", { code: null })).status, 401);
  assert.equal(loads, 1, "built once, by concurrent first requests");
});
