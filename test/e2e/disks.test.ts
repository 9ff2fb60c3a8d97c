import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { startReadinessServer } from "../../demo/readiness-server.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { DEMO_HOST_FACTS, harness, tempDir, untilNoBlockers, waitFor, writeFirstboot, writeSharedSerialHostFacts, type RunningInstaller } from "../helpers/installer.ts";
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
  const started = await installer.request("/v1/installer/install", { method: "POST" });
  assert.equal(started.status, 202, started.text);
  const verdict = await waitFor("the verdict", async () => {
    const reply = await installer.request("/v1/installer/install/verdict");
    return reply.status === 200 ? reply.json : undefined;
  });
  assert.equal(verdict.outcome, "succeeded", JSON.stringify(verdict));
}

describe("disks by stable identity", () => {
  test("GET /options lists each disk's by-id paths, WWN and serial besides /dev/sdX, as the host facts give them", async () => {
    const installer = await lab.start();
    const reply = await installer.request("/v1/installer/options");
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json.host.disks, JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8")).disks);
    assert.deepEqual(reply.json.host.disks[1], {
      name: "sdb",
      path: "/dev/sdb",
      byId: [SDB, "/dev/disk/by-id/ata-SAMSUNG_MZ7L33T8HBLT-00A07_S6ESNE0T612345"],
      wwn: "0x5002538f4312abcd",
      serial: "S6ESNE0T612345",
      sizeBytes: 3840755982336,
      model: "SAMSUNG MZ7L33T8HBLT",
      rotational: false,
      inUse: false,
    });
  });

  test("a draft naming disks by WWN and serial: the review shows node.yaml (stable paths, secrets redacted) and what it erases; the install writes the same node.yaml with the secret", async () => {
    const { installer, nodeYaml } = await rig();
    const draft = { ...VALID_DRAFT, storage: { osdDevices: ["wwn-0x5002538F4312ABCD", "S6ESNE0T612346"] }, cluster: { joinToken: TOKEN } };
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
    assert.equal(put.json.valid, true, put.text);
    assert.deepEqual(put.json.config.storage, draft.storage, "the draft keeps the names it was given");

    const review = await installer.request("/v1/installer/config/review");
    assert.equal(review.status, 200, review.text);
    assert.equal(review.headers.etag, put.headers.etag, "the review is of the draft with this ETag");
    const facts = JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8"));
    assert.deepEqual(review.json.erases, [facts.disks[1], facts.disks[2]]);
    assert.deepEqual(parse(review.json.nodeYaml).storage, { osd_devices: [SDB, SDC] });
    assert.equal(parse(review.json.nodeYaml).cluster.join_token, "[redacted]");
    assert.ok(!review.text.includes(TOKEN));

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
    const review = await installer.request("/v1/installer/config/review");
    assert.deepEqual(review.json.erases.map((d: { path: string }) => d.path), ["/dev/sdb"]);
    await installToDone(installer);
    assert.equal(await readFile(nodeYaml, "utf8"), yaml.replace("- /dev/sdb #", `- "${SDB}" #`));
  });

  test("the same disk twice in two ways is refused with the hint; the review answers 422 while the draft does not validate", async () => {
    const installer = await lab.start();
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, storage: { osdDevices: ["/dev/sdb", SDB, "0x5002538f4312ffff"] } } });
    assert.deepEqual(
      put.json.errors.map((e: { field: string; message: string }) => [e.field, e.message]),
      [
        ["storage.osdDevices[1]", `storage.osdDevices[1] ${SDB} is listed twice (also storage.osdDevices[0] as /dev/sdb: both are /dev/sdb)`],
        ["storage.osdDevices[2]", "storage.osdDevices[2] 0x5002538f4312ffff is not a disk on this host"],
      ],
    );
    assert.match(put.json.errors[1].hint, /\/dev\/sdb \(\/dev\/disk\/by-id\/wwn-0x5002538f4312abcd, WWN 0x5002538f4312abcd, serial S6ESNE0T612345\)/);
    const review = await installer.request("/v1/installer/config/review");
    assertProblem(review, 422, "INVALID_CONFIG");
    assert.deepEqual(review.json.errors.map((e: { field: string }) => e.field), ["storage.osdDevices[1]", "storage.osdDevices[2]"]);
  });

  test("a serial two NVMe namespaces share is refused as ambiguous, erasing neither; each namespace by its by-id path is accepted", async () => {
    const installer = await lab.start({ args: ["--host-facts", await writeSharedSerialHostFacts(await tempDir("stratum-disks-"))] });
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, storage: { osdDevices: ["PHAB123456781P6AGN"] } } });
    assert.deepEqual(put.json.errors.map((e: { field: string; message: string }) => [e.field, e.message]), [
      ["storage.osdDevices[0]", "storage.osdDevices[0] PHAB123456781P6AGN is ambiguous: /dev/nvme0n1 and /dev/nvme0n2 share this serial"],
    ]);
    assertProblem(await installer.request("/v1/installer/config/review"), 422, "INVALID_CONFIG");
    const byId = await installer.request("/v1/installer/config", { method: "PATCH", body: { storage: { osdDevices: ["/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95052"] } } });
    assert.equal(byId.json.valid, true, byId.text);
    const review = await installer.request("/v1/installer/config/review");
    assert.deepEqual(review.json.erases.map((d: { path: string }) => d.path), ["/dev/nvme0n2"]);
  });
});
