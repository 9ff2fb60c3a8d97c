import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { finished, install } from "../helpers/install-rig.ts";
import { harness, tempDir, untilNoBlockers, writeFirstboot, type RunningInstaller } from "../helpers/installer.ts";
import { assertProblem } from "../helpers/problem.ts";

const lab = harness();
const SDB = "/dev/disk/by-id/wwn-0x5002538f4312abcd";
const SDC = "/dev/disk/by-id/wwn-0x5002538f4312abce";
const TOKEN = "jt-SECRET-4711-token";

async function rig(): Promise<{ installer: RunningInstaller; nodeYaml: string }> {
  const folder = await tempDir("stratum-disks-");
  const readiness = await startReadinessServer({ port: 0, scenario: "ready", stageMs: 50 });
  lab.defer(() => readiness.close());
  const nodeYaml = join(folder, "etc/stratum/node.yaml");
  const installer = await lab.start({
    stateDir: join(folder, "state"),
    args: ["--firstboot", await writeFirstboot(folder, "#!/bin/sh\necho configured\n"), "--node-yaml", nodeYaml, "--readiness-url", readiness.url, "--readiness-interval", "0.1"],
  });
  await untilNoBlockers(installer);
  return { installer, nodeYaml };
}

async function installToDone(installer: RunningInstaller): Promise<void> {
  const verdict = await finished(installer, (await install(installer)).attempt);
  assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
}

// What the draft, its review and node.yaml say of disks is tested in-process (test/handlers/get-config-review.test.ts,
// get-config-node-yaml.test.ts, get-options.test.ts); here, what an install writes.
describe("disks by stable identity", () => {
  test("a draft naming disks by WWN and serial: the install writes the node.yaml GET /config/node.yaml renders (stable paths, the secret), which is the review's but for the redaction", async () => {
    const { installer, nodeYaml } = await rig();
    const draft = { ...VALID_DRAFT, storage: { osdDevices: ["wwn-0x5002538F4312ABCD", "S6ESNE0T612346"] }, cluster: { joinToken: TOKEN } };
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
    assert.equal(put.json.valid, true, put.text);
    const review = await installer.request("/v1/installer/config/review");
    const rendered = (await installer.request("/v1/installer/config/node.yaml")).text;
    assert.equal(rendered, review.json.nodeYaml.replace('"[redacted]"', JSON.stringify(TOKEN)));
    await installToDone(installer);
    const written = await readFile(nodeYaml, "utf8");
    assert.equal(written, rendered);
    assert.deepEqual(parse(written).storage.osd_devices, [SDB, SDC]);
  });

  test("POST /install with If-Match: a draft changed since its review is refused with 412 and nothing is written; the reviewed ETag installs", async () => {
    const { installer, nodeYaml } = await rig();
    assert.equal((await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT })).json.valid, true);
    const reviewed = (await installer.request("/v1/installer/config/review")).headers.etag as string;
    const changed = await installer.request("/v1/installer/config", { method: "PATCH", body: { storage: { osdDevices: ["/dev/sdb", "/dev/sdc"] } } });
    assert.equal(changed.json.valid, true, changed.text);

    const stale = await installer.request("/v1/installer/install", { method: "POST", headers: { "if-match": reviewed } });
    const problem = assertProblem(stale, 412, "PRECONDITION_FAILED");
    assert.match(problem.detail, /changed since you read it/);
    assert.deepEqual((await installer.request("/v1/installer/install/attempts")).json.attempts, [], "no attempt started");
    await assert.rejects(readFile(nodeYaml), { code: "ENOENT" }, "no node.yaml written");

    const current = (await installer.request("/v1/installer/config/review")).headers.etag as string;
    assert.notEqual(current, reviewed);
    const started = await installer.request("/v1/installer/install", { method: "POST", headers: { "if-match": current } });
    assert.equal(started.status, 202, started.text);
  });

  test("a raw node.yaml naming /dev/sdb is written with only that line changed, comments kept; one without disks is written as it is", async () => {
    const { installer, nodeYaml } = await rig();
    const yaml = `# rack 4\n${VALID_NODE_YAML}storage:\n  osd_devices:\n    - /dev/sdb # the left SSD\n`;
    const put = await installer.request("/v1/installer/config/node.yaml", { method: "PUT", contentType: "application/yaml", body: yaml });
    assert.equal(put.json.valid, true, put.text);
    await installToDone(installer);
    assert.equal(await readFile(nodeYaml, "utf8"), yaml.replace("- /dev/sdb #", `- "${SDB}" #`));
  });
});
