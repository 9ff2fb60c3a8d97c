/** A disk as a person tells it apart from its neighbours: size, model, serial and the stable path node.yaml gets. */
import { disksNamed, stablePath } from "../core/host/disk-names.ts";
import type { Schemas } from "./api.ts";

export type Disk = Schemas["HostDisk"];
export { disksNamed, stablePath };

export function size(bytes: number): string {
  return bytes >= 1e12 ? (bytes / 1e12).toFixed(1) + " TB" : Math.round(bytes / 1e9) + " GB";
}

/** "3.8 TB, SAMSUNG MZ7L33T8HBLT, SSD, serial S6ESNE0T612345": what is printed on the disk's label. */
export function diskFacts(disk: Disk): string {
  return [size(disk.sizeBytes), disk.model, disk.rotational ? "HDD" : "SSD", disk.serial && "serial " + disk.serial].filter(Boolean).join(", ");
}

/** Where node.yaml names the disk, said only when it is not the kernel path already shown. */
export function stableNote(disk: Disk): string {
  const stable = stablePath(disk);
  return stable === disk.path ? "" : "Stable path " + stable + ".";
}
