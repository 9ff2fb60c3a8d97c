import type { HostDisk, HostFacts } from "../host.ts";

export function interfaceList(host: HostFacts): string {
  if (host.interfaces.length === 0) return "this host reports no network interfaces";
  const names = host.interfaces.map((i) => (i.addresses.length > 0 ? `${i.name} (${i.addresses.join(", ")})` : i.name));
  return `interfaces on this host: ${names.join(", ")}`;
}

export function unusedDisks(host: HostFacts): HostDisk[] {
  return host.disks.filter((disk) => !disk.inUse);
}

export function unusedDiskList(host: HostFacts): string {
  const unused = unusedDisks(host);
  return unused.length > 0 ? `unused disks on this host: ${unused.map((d) => d.path).join(", ")}` : "this host has no unused disk";
}

export function diskList(host: HostFacts): string {
  if (host.disks.length === 0) return "this host reports no disks";
  const disks = host.disks.map((d) => (d.inUse ? `${d.path} (in use${d.usage ? `: ${d.usage}` : ""})` : d.path));
  return `disks on this host: ${disks.join(", ")}`;
}
