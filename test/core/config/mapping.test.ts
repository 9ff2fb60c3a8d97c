import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { draftToNodeYaml, nodeYamlToDraft } from "../../../core/config/index.ts";
import { HA_INIT } from "./fixtures.ts";

describe("nodeYamlToDraft / draftToNodeYaml", () => {
  it("renames every key and the mode, both ways", () => {
    const nodeYaml = draftToNodeYaml(HA_INIT);
    assert.deepEqual(Object.keys(nodeYaml), ["mode", "hostname", "timezone", "network", "storage", "cluster", "admin"]);
    assert.equal(nodeYaml.mode, "ha-init");
    assert.deepEqual(nodeYaml.storage, { osd_devices: ["/dev/sdb", "/dev/sdc"] });
    assert.deepEqual(Object.keys(nodeYaml.network as object), ["interface", "address", "gateway", "dns", "ntp", "vip", "floating_ip_cidrs"]);
    assert.deepEqual(Object.keys(nodeYaml.admin as object), ["ssh_authorized_keys", "password_hash"]);
    assert.deepEqual(nodeYamlToDraft(nodeYaml), HA_INIT);
  });

  it("keeps unknown keys and values as they are, so validation can name them", () => {
    const nodeYaml = { mode: "hyperconverged-init", network: { gatway: "x", floatingIpCidrs: ["a"] }, extra: { join_token: 1 } };
    assert.deepEqual(nodeYamlToDraft(nodeYaml), nodeYaml);
  });

  it("leaves values that are not objects alone", () => {
    for (const value of [null, 3, "x", [1], undefined]) assert.deepEqual(nodeYamlToDraft(value), value);
    assert.deepEqual(nodeYamlToDraft({ network: "eno1", storage: [1] }), { network: "eno1", storage: [1] });
  });

  it("keeps a __proto__ key as data", () => {
    const draft = nodeYamlToDraft(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.ok(Object.hasOwn(draft, "__proto__"));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
