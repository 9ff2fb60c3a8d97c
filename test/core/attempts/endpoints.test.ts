import assert from "node:assert/strict";
import { test } from "node:test";
import { endpointsOf } from "../../../core/attempts/endpoints.ts";
import type { Draft } from "../../../core/config/schema.ts";

const LOCAL = "https://127.0.0.1:8443/v1/readiness";
const network = { interface: "eno1", address: "10.20.0.11/24", gateway: "10.20.0.1" };

test("endpoints: where the installed cloud and node answer from off the node", () => {
  const table: [string, Draft | undefined, string, object][] = [
    ["single node: the node's address, the readiness port", { mode: "single-node", network }, LOCAL, { cloudApi: "https://10.20.0.11:8443", ssh: "10.20.0.11" }],
    ["ha-init: the VIP", { mode: "hyperconverged-init", network: { ...network, vip: "10.20.0.10" } }, LOCAL, { cloudApi: "https://10.20.0.10:8443", ssh: "10.20.0.11" }],
    ["join: the cluster at its join address, 8443 unless it names a port", { mode: "hyperconverged-join", network, cluster: { joinAddress: "10.20.0.10" } }, LOCAL, { cloudApi: "https://10.20.0.10:8443", ssh: "10.20.0.11" }],
    ["join with a port", { mode: "hyperconverged-join", network, cluster: { joinAddress: "10.20.0.10:9000" } }, LOCAL, { cloudApi: "https://10.20.0.10:9000", ssh: "10.20.0.11" }],
    ["IPv6 in brackets; http's default port", { mode: "single-node", network: { ...network, address: "fd00::11/64" } }, "http://[::1]/v1/readiness", { cloudApi: "http://[fd00::11]:80", ssh: "fd00::11" }],
    ["no address: nothing to say", { mode: "single-node" }, LOCAL, {}],
    ["no draft", undefined, LOCAL, {}],
  ];
  for (const [name, draft, url, expected] of table) assert.deepEqual(endpointsOf(draft, url), expected, name);
});
