import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { harness, tempDir, waitFor } from "../helpers/installer.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";

const lab = harness();

test("serve, asked nothing after its banner, warms its request paths up (logged), then answers as before", async () => {
  const installer = await lab.start({ stateDir: join(await tempDir(), "state") });
  const messages = () =>
    installer
      .output()
      .stderr.split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => (JSON.parse(line) as { message: string }).message);
  await waitFor("the warm-up's log line", async () => (messages().includes("request paths warmed up") ? true : undefined));
  assert.ok(!messages().includes("request paths not warmed up"));
  assert.equal((await installer.request("/v1/installer/status")).status, 200);
  const checked = await installer.request("/v1/installer/config/validate", { method: "POST", body: JSON.stringify(VALID_DRAFT) });
  assert.equal(checked.status, 200);
  assert.equal((checked.json as { valid: boolean }).valid, true);
});
