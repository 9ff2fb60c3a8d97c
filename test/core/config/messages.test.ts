import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { editDistance, nearest } from "../../../core/config/messages.ts";

describe("nearest", () => {
  it("counts a swap of neighbours as one edit", () => {
    assert.equal(editDistance("gateway", "gatewya"), 1);
    assert.equal(editDistance("gateway", "gatway"), 1);
    assert.equal(editDistance("", "abc"), 3);
  });

  it("finds a close name, ignoring case and separators", () => {
    const names = ["gateway", "floating_ip_cidrs", "vip"];
    assert.equal(nearest("gatewy", names, (n) => n), "gateway");
    assert.equal(nearest("floatingIpCidrs", names, (n) => n), "floating_ip_cidrs");
    assert.equal(nearest("vpi", names, (n) => n), "vip");
  });

  it("finds nothing when nothing is close", () => {
    assert.equal(nearest("dns_servers", ["dns", "ntp"], (n) => n), undefined);
    assert.equal(nearest("x".repeat(10_000), ["dns"], (n) => n), undefined);
  });
});
