/** What the installer knows of the machine it runs on (SPEC §5, GET /options). */
export interface HostInterface {
  name: string;
  mac: string;
  /** Link is up (operstate "up"). */
  up: boolean;
  /** Addresses in CIDR notation, e.g. "10.0.0.5/24". */
  addresses: string[];
}

export interface HostDisk {
  name: string;
  /** Kernel device path, e.g. "/dev/sdb": it may name another disk after a reboot or a disk swap. */
  path: string;
  /** The disk's stable paths under /dev/disk/by-id, the preferred first (its wwn- link when it has one): node.yaml gets that one. */
  byId?: string[];
  /** World Wide Name as udev spells it, e.g. "0x5002538f4312abcd" (NVMe: "eui.…"). */
  wwn?: string;
  serial?: string;
  sizeBytes: number;
  model: string;
  rotational: boolean;
  /** Holds partitions, a filesystem, or the running system: not usable for Ceph. */
  inUse: boolean;
  /** Why it is in use, for a person ("mounted at /", "has partitions sda1, sda2"). */
  usage?: string;
}

export interface HostFacts {
  hostname: string;
  interfaces: HostInterface[];
  disks: HostDisk[];
  memoryBytes: number;
  cpuCount: number;
}
