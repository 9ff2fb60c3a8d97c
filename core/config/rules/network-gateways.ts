import { type Cidr, cidrContains, type Ip, parseIp, subnetText } from "../net.ts";
import type { Draft, Names, Path, PathError } from "../schema.ts";
import { managementSubnet, reservedAddressKind } from "./management-subnet.ts";
import type { Rule } from "./rule.ts";

// IPv6 routers are usually announced by their link-local address (fe80::/10), outside every global subnet.
function isIpv6LinkLocal(ip: Ip): boolean {
  return ip.family === 6 && ip.value >> 118n === 0x3fan;
}

function placementProblem(ip: Ip, text: string, subnet: Cidr, draft: Draft, names: Names): string | undefined {
  const addressField = names.field(["network", "address"]);
  if (ip.family !== subnet.ip.family) {
    return `${text} is IPv${ip.family}, but the node's address (${addressField}) is IPv${subnet.ip.family}`;
  }
  if (!cidrContains(subnet, ip)) return `${text} is outside the management subnet ${subnetText(subnet)} (from ${addressField})`;
  if (ip.value === subnet.ip.value) return `${text} is the node's own address (${addressField} ${draft.network?.address})`;
  const reserved = reservedAddressKind(subnet, ip.value);
  return reserved ? `${text} is the ${reserved} address of ${subnetText(subnet)}` : undefined;
}

function checkAddress(key: "gateway" | "vip", draft: Draft, names: Names): { error?: PathError; ip?: Ip } {
  const text = draft.network?.[key];
  if (text === undefined) return {};
  const path: Path = ["network", key];
  const field = names.field(path);
  const parsed = parseIp(text);
  if (!parsed.ok) return { error: { path, message: `${field}: ${parsed.problem}` } };
  const subnet = managementSubnet(draft);
  if (!subnet || (key === "gateway" && isIpv6LinkLocal(parsed.value))) return { ip: parsed.value };
  const problem = placementProblem(parsed.value, text, subnet, draft, names);
  return { ip: parsed.value, error: problem ? { path, message: `${field} ${problem}` } : undefined };
}

export const validGatewayAndVip: Rule = (draft, { names }) => {
  const gateway = checkAddress("gateway", draft, names);
  const vip = checkAddress("vip", draft, names);
  const errors = [gateway.error, vip.error].filter((e): e is PathError => e !== undefined);
  if (!vip.error && gateway.ip && vip.ip && gateway.ip.family === vip.ip.family && gateway.ip.value === vip.ip.value) {
    const path = ["network", "vip"];
    errors.push({ path, message: `${names.field(path)} ${draft.network?.vip} is the gateway's address (${names.field(["network", "gateway"])}); the cluster needs an address of its own` });
  }
  return errors;
};
