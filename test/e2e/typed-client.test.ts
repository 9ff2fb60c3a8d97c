import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import createClient from "openapi-fetch";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import type { paths } from "../generated/installer-api.d.ts";
import { VALID_DRAFT } from "../helpers/fixtures.ts";
import { APP_BASE_URL, appFetch } from "../helpers/app-fetch.ts";
import { inProcessApp } from "../helpers/app.ts";
import { tempDir, waitFor, writeFirstboot } from "../helpers/installer.ts";

test("a client generated from /openapi.json by openapi-typescript drives a whole install with openapi-fetch", async (t) => {
  const folder = await tempDir();
  const firstboot = await writeFirstboot(folder, "#!/bin/sh\necho configuring from $1\n");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
  t.after(() => readiness.close());
  const installer = await inProcessApp(t, { args: ["--firstboot", firstboot, "--node-yaml", join(folder, "node.yaml"), "--readiness-url", readiness.url, "--readiness-interval", "0.1"] });
  await installer.untilNoBlockers();

  const api = createClient<paths>({ baseUrl: APP_BASE_URL, fetch: appFetch(installer), headers: { Authorization: `Bearer ${installer.code}` } });
  const status = await api.GET("/v1/installer/status");
  assert.equal(status.data?.phase, "configuring");
  const options = await api.GET("/v1/installer/options");
  assert.ok(options.data?.modes.some((m) => m.mode === "single-node" && m.available));
  const put = await api.PUT("/v1/installer/config", { body: VALID_DRAFT });
  assert.equal(put.data?.valid, true);
  const started = await api.POST("/v1/installer/install");
  assert.equal(started.response.status, 202);
  assert.equal(started.data?.attempt, 1);
  const verdict = await waitFor("verdict", async () => {
    const v = await api.GET("/v1/installer/install/verdict", { params: { query: { attempt: 1 } } });
    return v.data;
  });
  assert.equal(verdict.outcome, "succeeded");
  assert.equal(verdict.next, "none");
  const refused = await api.POST("/v1/installer/install");
  assert.equal(refused.error?.code, "ALREADY_INSTALLED");

  // The two answers that are not JSON, read as docs/integrators.md says: node.yaml as text, the support bundle as bytes.
  const nodeYaml = await api.GET("/v1/installer/config/node.yaml", { parseAs: "text" });
  assert.equal(nodeYaml.response.headers.get("content-type")?.split(";")[0], "application/yaml");
  assert.match(String(nodeYaml.data), /^mode: "single-node"$/m);
  const bundle = await api.GET("/v1/installer/support-bundle", { parseAs: "arrayBuffer" });
  const bytes = new Uint8Array(bundle.data as ArrayBuffer);
  assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b], "a gzip stream");
});
