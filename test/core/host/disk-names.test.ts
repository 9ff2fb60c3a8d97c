import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diskNamed, disksNamed, diskOfPartition, stablePath } from "../../../core/host/disk-names.ts";
import { IDENTIFIED_HOST, SHARED_NAMES_HOST } from "../config/fixtures.ts";

const [sda, sdb, , nvme] = IDENTIFIED_HOST.disks;

describe("disk names", () => {
  const cases: Array<[string, string, typeof sdb]> = [
    ["kernel path", "/dev/sdb", sdb],
    ["by-id path (wwn)", "/dev/disk/by-id/wwn-0x5002538f4312abcd", sdb],
    ["by-id path (ata)", "/dev/disk/by-id/ata-SAMSUNG_MZ7L33T8HBLT-00A07_S6ESNE0T612345", sdb],
    ["wwn- link name", "wwn-0x5002538f4312abcd", sdb],
    ["bare WWN", "0x5002538f4312abcd", sdb],
    ["WWN in capitals", "0x5002538F4312ABCD", sdb],
    ["serial", "S6ESNE0T612345", sdb],
    ["NVMe EUI", "eui.01000000000000005cd2e4c9e2a95051", nvme],
    ["NVMe by-id path", "/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051", nvme],
  ];
  for (const [what, name, disk] of cases) {
    it(`finds a disk by its ${what}`, () => assert.equal(diskNamed(IDENTIFIED_HOST, name), disk));
  }

  it("finds nothing for a name no disk has, nor for a serial in the wrong case", () => {
    for (const name of ["/dev/sdx", "sdb", "0x5002538f4312abcf", "s6esne0t612345", "/dev/disk/by-id/wwn-0x5002538f4312abcd-part1", ""]) {
      assert.equal(diskNamed(IDENTIFIED_HOST, name), undefined, name);
    }
  });

  it("names no disk by a serial or WWN two disks share, yet each by its own by-id or kernel path", () => {
    for (const name of ["PHAB123456781P6AGN", "0x5002538f4312abcd", "0x5002538F4312ABCD"]) assert.equal(diskNamed(SHARED_NAMES_HOST, name), undefined, name);
    const [, , , nvme0n1, nvme0n2, sdd] = SHARED_NAMES_HOST.disks;
    assert.deepEqual(disksNamed(SHARED_NAMES_HOST.disks, "PHAB123456781P6AGN"), [nvme0n1, nvme0n2]);
    assert.deepEqual(disksNamed(SHARED_NAMES_HOST.disks, "0x5002538f4312abcd"), [SHARED_NAMES_HOST.disks[1], sdd]);
    assert.equal(diskNamed(SHARED_NAMES_HOST, "/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95052"), nvme0n2);
    assert.equal(diskNamed(SHARED_NAMES_HOST, "wwn-0x5002538f4312abcd"), SHARED_NAMES_HOST.disks[1]);
    assert.equal(diskNamed(SHARED_NAMES_HOST, "/dev/sdd"), sdd);
  });

  it("prefers the first by-id path and falls back to the kernel path", () => {
    assert.equal(stablePath(sdb!), "/dev/disk/by-id/wwn-0x5002538f4312abcd");
    assert.equal(stablePath({ ...sdb!, byId: undefined }), "/dev/sdb");
  });

  it("names the whole disk of a partition, by kernel or by-id path", () => {
    assert.equal(diskOfPartition(IDENTIFIED_HOST, "/dev/sda2"), sda);
    assert.equal(diskOfPartition(IDENTIFIED_HOST, "/dev/nvme0n1p1"), nvme);
    assert.equal(diskOfPartition(IDENTIFIED_HOST, "/dev/disk/by-id/wwn-0x5002538f4312abcd-part1"), sdb);
    assert.equal(diskOfPartition(IDENTIFIED_HOST, "/dev/sdbx"), undefined);
  });
});
