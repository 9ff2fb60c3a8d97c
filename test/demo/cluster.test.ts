import assert from "node:assert/strict";
import { test } from "node:test";
import { parse as parseYaml } from "yaml";
import { inventoryText, MAX_NODES, parseNodes } from "../../demo/cluster.ts";

test("npm start -- --nodes N takes a whole number from 1 to the most it runs, and says so otherwise", () => {
  assert.deepEqual(["1", "3", String(MAX_NODES)].map(parseNodes), [1, 3, MAX_NODES]);
  for (const bad of ["0", String(MAX_NODES + 1), "three", "2.5", "-1", ""]) {
    assert.throws(() => parseNodes(bad), new RegExp(`--nodes must be a whole number from 1 to ${MAX_NODES}.*got "${bad}"`), bad);
  }
});

test("the demo's inventory reads the same in YAML 1.1 (Ansible's): a fingerprint of digits stays a string", () => {
  const digits = Array.from({ length: 32 }, (_, i) => String(10 + (i % 50)).padStart(2, "0")).join(":");
  const nodes = [
    { name: "node-01", url: "https://127.0.0.1:9451", fingerprint: digits, code: "AAAA-BBBB-CCCC" },
    { name: "node-02", url: "https://127.0.0.1:9452", fingerprint: "AB:".repeat(31) + "CD", code: "DDDD-EEEE-FFFF" },
  ];
  const inventory = parseYaml(inventoryText(nodes, 8453), { version: "1.1" });
  assert.deepEqual(inventory.stratum.hosts["node-01"].stratum_node, {
    installer: "https://127.0.0.1:9451",
    fingerprint: digits,
    code: "file:codes/node-01",
    role: "init",
    config: { network: { interface: "eno1", address: "10.20.0.11/24" }, storage: { osdDevices: ["/dev/sdb"] } },
  });
  assert.equal(inventory.stratum.hosts["node-02"].stratum_node.role, "join");
  assert.equal(inventory.stratum.vars.stratum_cluster.joinAddress, "127.0.0.1:8453");
  assert.ok(!inventoryText(nodes, 8453).includes("AAAA-BBBB-CCCC"), "codes stay in their files");
});
