import type { HostDisk, HostFacts } from "./facts.ts";

const BY_ID = "/dev/disk/by-id/";

/** Where node.yaml names the disk: its preferred /dev/disk/by-id path, which survives reboots and disk swaps; else its kernel path. */
export function stablePath(disk: HostDisk): string {
  return disk.byId?.[0] ?? disk.path;
}

/** Every name a draft may give the disk: kernel path, by-id paths and their link names (wwn-0x…), WWN and serial. */
function namesOf(disk: HostDisk): string[] {
  const links = disk.byId ?? [];
  return [
    disk.path,
    ...links,
    ...links.map((link) => link.slice(link.lastIndexOf("/") + 1)),
    ...(disk.wwn ? [disk.wwn] : []),
    ...(disk.serial ? [disk.serial] : []),
  ];
}

// A WWN is hex: 0x5002538F… and 0x5002538f… are one disk.
function comparable(name: string): string {
  return /^(wwn-)?(0x|eui\.|naa\.)[0-9a-f]+$/i.test(name) ? name.toLowerCase() : name;
}

function isNamed(disk: HostDisk, name: string): boolean {
  const wanted = comparable(name);
  return namesOf(disk).some((known) => comparable(known) === wanted);
}

/**
 * Every disk `name` names (the console asks this too, of the disks GET /options lists): more than one when disks
 * share it, as the namespaces of one NVMe controller share its serial and two paths to one SAS disk its WWN.
 */
export function disksNamed<D extends HostDisk>(disks: readonly D[], name: string): D[] {
  return disks.filter((disk) => isNamed(disk, name));
}

/** The one disk `name` names: none when no disk has the name, nor when several share it (never a pick among them). */
export function diskNamed(host: HostFacts, name: string): HostDisk | undefined {
  const [disk, ...others] = disksNamed(host.disks, name);
  return others.length === 0 ? disk : undefined;
}

/** What the disks `name` names share: their "serial", their "WWN" or, for anything else, a "name". */
export function sharedKind(disks: readonly HostDisk[], name: string): string {
  if (disks.every((disk) => disk.serial === name)) return "serial";
  return disks.every((disk) => disk.wwn !== undefined && comparable(disk.wwn) === comparable(name)) ? "WWN" : "name";
}

/** The whole disk a partition name belongs to: /dev/sdb1, /dev/nvme0n1p2, /dev/disk/by-id/wwn-0x…-part1. */
export function diskOfPartition(host: HostFacts, name: string): HostDisk | undefined {
  const byIdPartition = /^(.+)-part\d+$/.exec(name);
  if (byIdPartition && name.startsWith(BY_ID)) return diskNamed(host, byIdPartition[1]!);
  return host.disks.find((d) => name.startsWith(d.path) && /^p?\d+$/.test(name.slice(d.path.length)));
}
