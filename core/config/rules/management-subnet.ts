import { type Cidr, parseCidr } from "../net.ts";
import type { Draft } from "../schema.ts";

/** The subnet of network.address, when it parses (the address rule reports it when not). */
export function managementSubnet(draft: Draft): Cidr | undefined {
  const address = draft.network?.address;
  if (address === undefined) return undefined;
  const parsed = parseCidr(address);
  return parsed.ok ? parsed.value : undefined;
}

/** The network or broadcast address of an IPv4 subnet that has room for hosts besides them. */
export function reservedAddressKind(subnet: Cidr, value: bigint): "network" | "broadcast" | undefined {
  if (subnet.ip.family !== 4 || subnet.prefix > 30) return undefined;
  if (value === subnet.first) return "network";
  if (value === subnet.last) return "broadcast";
  return undefined;
}
