import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { parse } from "yaml";
import getNodeYaml from "../../handlers/get-config-node-yaml.ts";
import route from "../../handlers/get-config-review.ts";
import putConfig from "../../handlers/put-config.ts";
import { inProcessApp } from "../helpers/app.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { tempDir, writeSharedSerialHostFacts } from "../helpers/installer.ts";
import { DEMO_HOST_FACTS } from "../helpers/paths.ts";
import { assertProblem } from "../helpers/problem.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";

const path = "/v1/installer/config/review";
const SDB = "/dev/disk/by-id/wwn-0x5002538f4312abcd";
const SDC = "/dev/disk/by-id/wwn-0x5002538f4312abce";
const TOKEN = "jt-SECRET-4711-token";

describe("GET /v1/installer/config/review", () => {
  test("200: a draft naming disks by WWN and serial: node.yaml with stable paths and secrets redacted, the disks it erases as the host reports them, the draft's ETag", async (t) => {
    const installer = await inProcessApp(t);
    const draft = { ...VALID_DRAFT, storage: { osdDevices: ["wwn-0x5002538F4312ABCD", "S6ESNE0T612346"] }, cluster: { joinToken: TOKEN } };
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: draft });
    const stored = assertAnswers(putConfig, 200, put);
    assert.equal(stored.valid, true, put.text);
    assert.deepEqual(stored.config?.storage, draft.storage, "the draft keeps the names it was given");

    const reply = await installer.request(path);
    const review = assertAnswers(route, 200, reply);
    assert.equal(reply.headers.etag, put.headers.etag, "the review is of the draft with this ETag");
    const facts = JSON.parse(await readFile(DEMO_HOST_FACTS, "utf8"));
    assert.deepEqual(review.erases, [facts.disks[1], facts.disks[2]]);
    assert.deepEqual(parse(review.nodeYaml).storage, { osd_devices: [SDB, SDC] });
    assert.equal(parse(review.nodeYaml).cluster.join_token, "[redacted]");
    assert.ok(!reply.text.includes(TOKEN));
    const rendered = assertAnswers(getNodeYaml, 200, await installer.request("/v1/installer/config/node.yaml"));
    assert.equal(rendered, review.nodeYaml.replace('"[redacted]"', JSON.stringify(TOKEN)), "the node.yaml the install writes, but for the secret");
  });

  test("200: a raw node.yaml naming /dev/sdb erases that disk; one without disks erases none", async (t) => {
    const installer = await inProcessApp(t);
    const yaml = `# rack 4\n${VALID_NODE_YAML}storage:\n  osd_devices:\n    - /dev/sdb # the left SSD\n`;
    await installer.request("/v1/installer/config/node.yaml", { method: "PUT", contentType: "application/yaml", body: yaml });
    const review = assertAnswers(route, 200, await installer.request(path));
    assert.deepEqual(review.erases.map((d) => d.path), ["/dev/sdb"]);
    assert.equal(review.nodeYaml, yaml.replace("- /dev/sdb #", `- "${SDB}" #`));
    await installer.request("/v1/installer/config/node.yaml", { method: "PUT", contentType: "application/yaml", body: VALID_NODE_YAML });
    assert.deepEqual(assertAnswers(route, 200, await installer.request(path)), { nodeYaml: VALID_NODE_YAML, erases: [] });
  });

  test("422 INVALID_CONFIG: the same disk twice in two ways, and a disk the host lacks, each with a hint", async (t) => {
    const installer = await inProcessApp(t);
    const put = await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, storage: { osdDevices: ["/dev/sdb", SDB, "0x5002538f4312ffff"] } } });
    const stored = assertAnswers(putConfig, 200, put);
    assert.deepEqual(stored.errors.map((e) => [e.field, e.message]), [
      ["storage.osdDevices[1]", `storage.osdDevices[1] ${SDB} is listed twice (also storage.osdDevices[0] as /dev/sdb: both are /dev/sdb)`],
      ["storage.osdDevices[2]", "storage.osdDevices[2] 0x5002538f4312ffff is not a disk on this host"],
    ]);
    assert.match(String(stored.errors[1]!.hint), /\/dev\/sdb \(\/dev\/disk\/by-id\/wwn-0x5002538f4312abcd, WWN 0x5002538f4312abcd, serial S6ESNE0T612345\)/);
    const reply = await installer.request(path);
    assertAnswers(route, 422, reply);
    assertProblem(reply, 422, "INVALID_CONFIG", { errors: stored.errors });
  });

  test("422 INVALID_CONFIG: a serial two NVMe namespaces share is ambiguous, erasing neither; each namespace by its by-id path is accepted", async (t) => {
    const installer = await inProcessApp(t, { args: ["--host-facts", await writeSharedSerialHostFacts(await tempDir("stratum-review-"))] });
    const put = assertAnswers(putConfig, 200, await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, storage: { osdDevices: ["PHAB123456781P6AGN"] } } }));
    assert.deepEqual(put.errors.map((e) => [e.field, e.message]), [
      ["storage.osdDevices[0]", "storage.osdDevices[0] PHAB123456781P6AGN is ambiguous: /dev/nvme0n1 and /dev/nvme0n2 share this serial"],
    ]);
    const refused = await installer.request(path);
    assertAnswers(route, 422, refused);
    assertProblem(refused, 422, "INVALID_CONFIG");
    const byId = await installer.request("/v1/installer/config", { method: "PATCH", body: { storage: { osdDevices: ["/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95052"] } } });
    assert.equal(byId.json.valid, true, byId.text);
    assert.deepEqual(assertAnswers(route, 200, await installer.request(path)).erases.map((d) => d.path), ["/dev/nvme0n2"]);
  });

  describeAuth(route, {
    path,
    breaks: (services) => {
      services.draft.review = () => {
        throw new Error("review broken at /var/lib/stratum/secret-path");
      };
    },
  });
});
