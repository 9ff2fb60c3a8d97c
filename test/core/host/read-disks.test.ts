import assert from "node:assert/strict";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { readDisks } from "../../../core/host/read-disks.ts";

/** A folder laid out like a host's /sys, /dev, /run/udev and /proc, with what udev and the kernel write there. */
async function fakeHost(files: Record<string, string>, links: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "host-disks-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  for (const [path, target] of Object.entries(links)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await symlink(target, join(root, path));
  }
  return root;
}

test("readDisks reads each disk's stable names: by-id links (wwn- first), udev's WWN and serial, else sysfs", async () => {
  const root = await fakeHost(
    {
      "sys/block/sda/size": "937703088\n",
      "sys/block/sda/dev": "8:0\n",
      "sys/block/sda/device/model": "SAMSUNG MZ7L3480\n",
      "sys/block/sda/queue/rotational": "0\n",
      "sys/block/sda/sda1/partition": "1\n",
      "sys/block/sdb/size": "7501476528\n",
      "sys/block/sdb/dev": "8:16\n",
      "sys/block/sdb/device/model": "SAMSUNG MZ7L33T8\n",
      "sys/block/sdb/device/wwid": "naa.5002538f4312abcd\n",
      "sys/block/sdb/queue/rotational": "0\n",
      "sys/block/nvme0n1/size": "3125627568\n",
      "sys/block/nvme0n1/dev": "259:0\n",
      "sys/block/nvme0n1/device/model": "Dell Ent NVMe P5600\n",
      "sys/block/nvme0n1/device/serial": "PHAB123456781P6AGN  \n",
      "sys/block/nvme0n1/wwid": "eui.01000000000000005cd2e4c9e2a95051\n",
      "sys/block/vda/size": "2097152\n",
      "sys/block/vda/serial": "overlayblk\n",
      "sys/block/loop0/size": "0\n",
      "dev/sda": "", "dev/sda1": "", "dev/sdb": "", "dev/nvme0n1": "",
      "run/udev/data/b8:0": "S:disk/by-id/wwn-0x5002538f4200a001\nE:ID_SERIAL_SHORT=S6KNNE0T500123\nE:ID_WWN=0x5002538f4200a001\n",
      "proc/mounts": "/dev/sda1 / ext4 rw 0 0\n",
    },
    {
      "dev/disk/by-id/ata-SAMSUNG_MZ7L3480HCHQ-00A07_S6KNNE0T500123": "../../sda",
      "dev/disk/by-id/wwn-0x5002538f4200a001": "../../sda",
      "dev/disk/by-id/wwn-0x5002538f4200a001-part1": "../../sda1",
      "dev/disk/by-id/scsi-35002538f4312abcd": "../../sdb",
      "dev/disk/by-id/nvme-Dell_Ent_NVMe_P5600_PHAB123456781P6AGN": "../../nvme0n1",
      "dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051": "../../nvme0n1",
      "dev/disk/by-id/dangling": "../../sdz",
    },
  );
  const disks = await readDisks(root);
  const ids = disks.map(({ name, byId, wwn, serial }) => ({ name, byId, wwn, serial }));
  assert.deepEqual(ids, [
    {
      name: "nvme0n1",
      byId: ["/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051", "/dev/disk/by-id/nvme-Dell_Ent_NVMe_P5600_PHAB123456781P6AGN"],
      wwn: "eui.01000000000000005cd2e4c9e2a95051",
      serial: "PHAB123456781P6AGN",
    },
    { name: "sda", byId: ["/dev/disk/by-id/wwn-0x5002538f4200a001", "/dev/disk/by-id/ata-SAMSUNG_MZ7L3480HCHQ-00A07_S6KNNE0T500123"], wwn: "0x5002538f4200a001", serial: "S6KNNE0T500123" },
    { name: "sdb", byId: ["/dev/disk/by-id/scsi-35002538f4312abcd"], wwn: "0x5002538f4312abcd", serial: undefined },
    { name: "vda", byId: undefined, wwn: undefined, serial: "overlayblk" },
  ]);
  assert.deepEqual(disks.map((d) => [d.name, d.inUse, d.usage]), [["nvme0n1", false, undefined], ["sda", true, "has partitions sda1; sda1 mounted at /"], ["sdb", false, undefined], ["vda", false, undefined]]);
  assert.equal(disks[1]!.sizeBytes, 937703088 * 512);
});
