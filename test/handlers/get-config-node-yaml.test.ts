import assert from "node:assert/strict";
import { describe, test } from "node:test";
import route from "../../handlers/get-config-node-yaml.ts";
import postValidate from "../../handlers/post-config-validate.ts";
import { inProcessApp } from "../helpers/app.ts";
import { VALID_DRAFT, VALID_NODE_YAML } from "../helpers/fixtures.ts";
import { assertProblem } from "../helpers/problem.ts";
import { describeAuth } from "../helpers/route-auth.ts";
import { assertAnswers } from "../helpers/route-schema.ts";
import { UNPRINTABLE, assertPrintableJson } from "../helpers/printable-json.ts";

const path = "/v1/installer/config/node.yaml";
const SDB = "/dev/disk/by-id/wwn-0x5002538f4312abcd";

describe("GET /v1/installer/config/node.yaml", () => {
  test("200: a structured draft rendered to node.yaml, which the validator takes", async (t) => {
    const installer = await inProcessApp(t);
    await installer.request("/v1/installer/config", { method: "PUT", body: VALID_DRAFT });
    const rendered = assertAnswers(route, 200, await installer.request(path));
    assert.equal(
      rendered,
      [
        "# node.yaml written by the Stratum installer",
        'mode: "single-node"',
        'hostname: "node-01"',
        'timezone: "Europe/Berlin"',
        "network:",
        '  interface: "eno1"',
        '  address: "10.20.0.11/24"',
        '  gateway: "10.20.0.1"',
        "  dns:",
        '    - "10.20.0.2"',
        "  ntp:",
        '    - "pool.ntp.org"',
        "  floating_ip_cidrs:",
        '    - "203.0.113.0/24"',
        "admin:",
        "  ssh_authorized_keys:",
        `    - ${JSON.stringify(VALID_DRAFT.admin.sshAuthorizedKeys[0])}`,
        "",
      ].join("\n"),
    );
    const judged = assertAnswers(postValidate, 200, await installer.request("/v1/installer/config/validate", { method: "POST", body: rendered, contentType: "application/yaml" }));
    assert.deepEqual(judged, { valid: true, errors: [], mode: "single-node", profile: "single-node" });
  });

  test("200: a raw node.yaml draft as it is, comments kept, but for its OSD disks named by their stable path", async (t) => {
    const installer = await inProcessApp(t);
    const yaml = `# rack 4\n${VALID_NODE_YAML}storage:\n  osd_devices:\n    - /dev/sdb # the left SSD\n`;
    await installer.request(path, { method: "PUT", body: yaml, contentType: "application/yaml" });
    assert.equal(assertAnswers(route, 200, await installer.request(path)), yaml.replace("- /dev/sdb #", `- "${SDB}" #`));
    await installer.request(path, { method: "PUT", body: VALID_NODE_YAML, contentType: "application/yaml" });
    assert.equal(assertAnswers(route, 200, await installer.request(path)), VALID_NODE_YAML, "one without disks as it is");
  });

  test("422 INVALID_CONFIG while the draft does not validate, with its errors", async (t) => {
    const installer = await inProcessApp(t);
    const reply = await installer.request(path);
    assertAnswers(route, 422, reply);
    assertProblem(reply, 422, "INVALID_CONFIG", { errors: (await installer.request("/v1/installer/config")).json.errors });
  });

  test("422 INVALID_CONFIG for a raw node.yaml that parses but does not validate: it is not rendered as it is", async (t) => {
    const installer = await inProcessApp(t);
    await installer.request(path, { method: "PUT", body: `${VALID_NODE_YAML}colour: blue\n`, contentType: "application/yaml" });
    const reply = await installer.request(path);
    assertAnswers(route, 422, reply);
    assertProblem(reply, 422, "INVALID_CONFIG", { errors: (await installer.request("/v1/installer/config")).json.errors });
  });

  // The problem writer used JSON.stringify, which escapes C0 only: a key pasted with a right-to-left override was raw in errors[].field.
  test("422 INVALID_CONFIG: an error's field holding bidi controls, C1 or line separators is written out (\\u202e), the same errors once parsed", async (t) => {
    const installer = await inProcessApp(t);
    await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, [UNPRINTABLE]: 1 } });
    const reply = await installer.request(path);
    assertAnswers(route, 422, reply);
    assertProblem(reply, 422, "INVALID_CONFIG", { errors: (await installer.request("/v1/installer/config")).json.errors });
    assert.deepEqual(assertPrintableJson(reply.text).errors.map((e: { field: string }) => e.field), [UNPRINTABLE]);
  });

  test("422 INVALID_CONFIG: a key of 100 KB is named in errors[].field cut short, saying how much", async (t) => {
    const installer = await inProcessApp(t);
    await installer.request("/v1/installer/config", { method: "PUT", body: { ...VALID_DRAFT, ["k".repeat(100_000)]: 1 } });
    const reply = await installer.request(path);
    assertAnswers(route, 422, reply);
    const body = assertProblem(reply, 422, "INVALID_CONFIG");
    assert.deepEqual(body.errors.map((e: { field: string }) => e.field), [`${"k".repeat(256)} … [cut 97.4 KiB]`]);
  });

  describeAuth(route, {
    path,
    breaks: (services) => {
      services.draft.nodeYaml = () => {
        throw new Error("renderer broken at /var/lib/stratum/secret-path");
      };
    },
  });
});
