import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { createClient, createConfig } from "../generated/hey-api/client/index.ts";
import { getConfig, getEvents, getStatus, getVerdict, putNodeYaml, startInstall, type InstallEvent } from "../generated/hey-api/index.ts";
import { VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { APP_BASE_URL, appFetch } from "../helpers/app-fetch.ts";
import { inProcessApp } from "../helpers/app.ts";
import { tempDir, waitFor, writeFirstboot } from "../helpers/installer.ts";

// No `as` in this file: what the generated client takes and returns is typed by /openapi.json alone.
test("a client generated from /openapi.json by @hey-api/openapi-ts drives a whole install of a raw node.yaml draft", async (t) => {
  const folder = await tempDir();
  const nodeYamlPath = join(folder, "node.yaml");
  const firstboot = await writeFirstboot(folder, "#!/bin/sh\necho configuring from $1\n");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready" });
  t.after(() => readiness.close());
  const installer = await inProcessApp(t, { args: ["--firstboot", firstboot, "--node-yaml", nodeYamlPath, "--readiness-url", readiness.url, "--readiness-interval", "0.1"] });
  await installer.untilNoBlockers();

  const client = createClient(createConfig({ baseUrl: APP_BASE_URL, fetch: appFetch(installer), auth: installer.code }));
  const status = await getStatus({ client });
  assert.equal(status.data?.phase, "configuring");
  const draft = await getConfig({ client });
  const etag = draft.response.headers.get("etag");
  assert.ok(etag);

  const put = await putNodeYaml({ client, body: VALID_NODE_YAML, headers: { "if-match": etag } });
  assert.equal(put.response.status, 200, JSON.stringify(put.error));
  assert.deepEqual([put.data?.source, put.data?.yaml, put.data?.valid, put.data?.errors], ["yaml", VALID_NODE_YAML, true, []]);
  assert.equal((await getStatus({ client })).data?.mode, "single-node");

  const started = await startInstall({ client });
  assert.equal(started.response.status, 202);
  assert.equal(started.data?.attempt, 1);
  const verdict = await waitFor("verdict", async () => (await getVerdict({ client, query: { attempt: 1 } })).data);
  assert.equal(verdict.outcome, "succeeded");
  assert.equal(verdict.next, "none");

  const page = await getEvents({ client, query: { attempt: 1 } });
  const events: InstallEvent[] = page.data?.events ?? [];
  assert.equal(events.at(-1)?.type, "attempt.finished");
  assert.ok(events.some((event) => event.type === "step.log" && event.message.includes(`configuring from ${nodeYamlPath}`)), JSON.stringify(events));
  assert.equal(await readFile(nodeYamlPath, "utf8"), VALID_NODE_YAML, "the raw draft is the node.yaml written");
  assert.equal((await getStatus({ client })).data?.phase, "done");
  const refused = await startInstall({ client });
  assert.equal(refused.error?.code, "ALREADY_INSTALLED");
});
