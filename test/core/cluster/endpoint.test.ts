import assert from "node:assert/strict";
import { test } from "node:test";
import { authority, parseJoinAddress } from "../../../core/cluster/endpoint.ts";

const cases: [string, string, number, string][] = [
  ["10.20.0.10", "10.20.0.10", 8443, "10.20.0.10:8443"],
  ["10.20.0.10:9443", "10.20.0.10", 9443, "10.20.0.10:9443"],
  ["node-01.lab", "node-01.lab", 8443, "node-01.lab:8443"],
  ["node-01.lab:443", "node-01.lab", 443, "node-01.lab:443"],
  ["fd00::10", "fd00::10", 8443, "[fd00::10]:8443"],
  ["[fd00::10]", "fd00::10", 8443, "[fd00::10]:8443"],
  ["[fd00::10]:9443", "fd00::10", 9443, "[fd00::10]:9443"],
  ["::1", "::1", 8443, "[::1]:8443"],
];
for (const [text, host, port, shown] of cases) {
  test(`${text} → ${shown}`, () => {
    const endpoint = parseJoinAddress(text);
    assert.deepEqual(endpoint, { host, port });
    assert.equal(authority(endpoint), shown);
  });
}
