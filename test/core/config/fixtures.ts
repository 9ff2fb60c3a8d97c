import type { HostFacts } from "../../../core/host/facts.ts";
import { BUILT_IN_RELEASE, type ReleaseModel } from "../../../core/payload/release-model.ts";
import type { Draft, ValidationContext } from "../../../core/config/index.ts";

/** A well-shaped join token (SPEC §6): the fingerprint of a certificate and a 256-bit secret. */
export const JOIN_TOKEN = `STRATUM1:${"3f".repeat(32)}:zKq9TnJ4v2X8mQw1Rr7bYc5uE0aLsD3hFgH6iPkV-_o`;

export const HOST: HostFacts = {
  hostname: "localhost",
  interfaces: [
    { name: "eno1", mac: "3c:ec:ef:00:00:01", up: true, addresses: ["10.20.0.11/24"] },
    { name: "eno2", mac: "3c:ec:ef:00:00:02", up: false, addresses: [] },
  ],
  disks: [
    { name: "sda", path: "/dev/sda", sizeBytes: 480e9, model: "SSD 480", rotational: false, inUse: true, usage: "mounted at /" },
    { name: "sdb", path: "/dev/sdb", sizeBytes: 4e12, model: "HDD 4T", rotational: true, inUse: false },
    { name: "sdc", path: "/dev/sdc", sizeBytes: 4e12, model: "HDD 4T", rotational: true, inUse: false },
  ],
  memoryBytes: 64 * 2 ** 30,
  cpuCount: 16,
};

/** HOST's disks as udev names them on a real machine: by-id paths, WWN and serial (the demo host's). */
export const IDENTIFIED_HOST: HostFacts = {
  ...HOST,
  disks: [
    { ...HOST.disks[0]!, byId: ["/dev/disk/by-id/wwn-0x5002538f4200a001"], wwn: "0x5002538f4200a001", serial: "S6KNNE0T500123" },
    {
      ...HOST.disks[1]!,
      byId: ["/dev/disk/by-id/wwn-0x5002538f4312abcd", "/dev/disk/by-id/ata-SAMSUNG_MZ7L33T8HBLT-00A07_S6ESNE0T612345"],
      wwn: "0x5002538f4312abcd",
      serial: "S6ESNE0T612345",
    },
    { ...HOST.disks[2]!, serial: "S6ESNE0T612346" },
    {
      name: "nvme0n1",
      path: "/dev/nvme0n1",
      byId: ["/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051"],
      wwn: "eui.01000000000000005cd2e4c9e2a95051",
      serial: "PHAB123456781P6AGN",
      sizeBytes: 1.6e12,
      model: "NVMe 1.6T",
      rotational: false,
      inUse: false,
    },
  ],
};

/** Disks sharing a name: two namespaces of one NVMe controller (one serial), two paths to one SAS disk (one WWN). */
export const SHARED_NAMES_HOST: HostFacts = {
  ...IDENTIFIED_HOST,
  disks: [
    ...IDENTIFIED_HOST.disks,
    { ...IDENTIFIED_HOST.disks[3]!, name: "nvme0n2", path: "/dev/nvme0n2", byId: ["/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95052"], wwn: "eui.01000000000000005cd2e4c9e2a95052" },
    { name: "sdd", path: "/dev/sdd", wwn: "0x5002538f4312abcd", sizeBytes: 4e12, model: "HDD 4T", rotational: true, inUse: false },
  ],
};

const RELEASE: ReleaseModel = {
  release: "2026.11.0",
  profiles: {
    "single-node": { enabled: true },
    hyperconverged: { enabled: true },
    disaggregated: { enabled: false, preview: true },
  },
};

export const CTX: ValidationContext = { host: HOST, release: RELEASE };
export const IDENTIFIED_CTX: ValidationContext = { host: IDENTIFIED_HOST, release: RELEASE };
export const SHARED_NAMES_CTX: ValidationContext = { host: SHARED_NAMES_HOST, release: RELEASE };
export const BUILT_IN_CTX: ValidationContext = { host: HOST, release: BUILT_IN_RELEASE };

export const ED25519_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q ops@example";
const SHA512_HASH = `$6$rounds=656000$saltsaltsaltsalt$${"a".repeat(86)}`;

/** A valid single-node draft. */
export const SINGLE_NODE: Draft = {
  mode: "single-node",
  hostname: "node-01",
  timezone: "Europe/Berlin",
  network: {
    interface: "eno1",
    address: "10.20.0.11/24",
    gateway: "10.20.0.1",
    dns: ["10.20.0.2"],
    ntp: ["ntp.example.net", "10.20.0.3"],
    floatingIpCidrs: ["203.0.113.0/24", "198.51.100.0/25"],
  },
  admin: { sshAuthorizedKeys: [ED25519_KEY], passwordHash: SHA512_HASH },
};

/** A valid hyperconverged-init draft. */
export const HA_INIT: Draft = {
  ...SINGLE_NODE,
  mode: "hyperconverged-init",
  network: { ...SINGLE_NODE.network, vip: "10.20.0.10" },
  storage: { osdDevices: ["/dev/sdb", "/dev/sdc"] },
  cluster: { name: "rack-a" },
};

/** A valid hyperconverged-join draft. */
export const HA_JOIN: Draft = {
  ...SINGLE_NODE,
  mode: "hyperconverged-join",
  storage: { osdDevices: ["/dev/sdb"] },
  cluster: { joinAddress: "10.20.0.10:9443", joinToken: JOIN_TOKEN },
};
