import fc from "fast-check";
import type { Draft } from "../../../core/config/index.ts";
import { MODES } from "../../../core/common/model.ts";

// Strings a YAML writer must quote to keep them strings.
const TRICKY = ["yes", "no", "on", "~", "null", "true", "123", "0o17", "1e3", "- x", "#x", "a: b", " lead", "trail ", "2026-11-01", "'q'", '"dq"', "*alias", "&anchor", "!tag", "%x", "@x", "|", ">", "\n", "a\nb", "\t", "[x]", "{x}"];

function text(max: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: Math.min(max, 40) }),
    fc.string({ unit: "binary-ascii", minLength: 1, maxLength: Math.min(max, 20) }),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: Math.min(max, 10) }),
    fc.constantFrom(...TRICKY.filter((t) => t.length <= max)),
  ).filter((s) => s.length <= max); // zod counts UTF-16 units; a grapheme may take several
}

const list = (maxItems: number, maxLength: number) => fc.array(text(maxLength), { maxLength: maxItems });

/** Drafts that pass DraftSchema (right keys, types and bounds), whatever their values mean. */
export const wellShapedDraft: fc.Arbitrary<Draft> = fc.record(
  {
    mode: fc.constantFrom(...MODES),
    hostname: text(253),
    timezone: text(64),
    network: fc.record(
      { interface: text(15), address: text(64), gateway: text(64), dns: list(8, 64), ntp: list(8, 253), vip: text(64), floatingIpCidrs: list(64, 64) },
      { requiredKeys: [], noNullPrototype: true },
    ),
    storage: fc.record({ osdDevices: list(64, 256) }, { requiredKeys: [], noNullPrototype: true }),
    cluster: fc.record({ name: text(63), joinAddress: text(261), joinToken: text(4096) }, { requiredKeys: [], noNullPrototype: true }),
    admin: fc.record({ sshAuthorizedKeys: list(64, 16384), passwordHash: text(512) }, { requiredKeys: [], noNullPrototype: true }),
  },
  { requiredKeys: [], noNullPrototype: true },
);

const ipv4 = fc.ipV4();
/** Drafts with plausible values, to reach the deeper rules. */
export const plausibleDraft: fc.Arbitrary<Draft> = fc.record(
  {
    mode: fc.constantFrom(...MODES),
    hostname: fc.domain(),
    network: fc.record(
      {
        interface: fc.constantFrom("eno1", "eno2", "eth0"),
        address: fc.tuple(ipv4, fc.integer({ min: 0, max: 33 })).map(([ip, prefix]) => `${ip}/${prefix}`),
        gateway: ipv4,
        dns: fc.array(fc.oneof(ipv4, fc.ipV6()), { maxLength: 3 }),
        ntp: fc.array(fc.oneof(ipv4, fc.domain()), { maxLength: 3 }),
        vip: ipv4,
        floatingIpCidrs: fc.array(fc.tuple(ipv4, fc.integer({ min: 0, max: 32 })).map(([ip, prefix]) => `${ip}/${prefix}`), { maxLength: 4 }),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    storage: fc.record({ osdDevices: fc.array(fc.constantFrom("/dev/sda", "/dev/sdb", "/dev/sdc", "sdb", "/dev/sdb1"), { maxLength: 4 }) }, { requiredKeys: [], noNullPrototype: true }),
    cluster: fc.record({ name: fc.domain(), joinAddress: fc.oneof(ipv4, fc.domain(), ipv4.map((ip) => `${ip}:9443`)), joinToken: fc.string({ minLength: 1 }) }, { requiredKeys: [], noNullPrototype: true }),
    admin: fc.record({ sshAuthorizedKeys: fc.array(fc.string({ minLength: 1 }), { maxLength: 2 }), passwordHash: fc.string({ minLength: 1 }) }, { requiredKeys: [], noNullPrototype: true }),
  },
  { requiredKeys: [], noNullPrototype: true },
);
