import { interfaceList, shown } from "../messages.ts";
import { type Cidr, cidrContains, cidrsOverlap, formatIp, type Ip, parseCidr, parseHostOrIp, parseIp, subnetText } from "../net.ts";
import { itemsOf } from "../paths.ts";
import type { Draft, Names, Path, PathError, Rule } from "../schema.ts";

/** The subnet of network.address, when it parses (the address rule reports it when not). */
export function managementSubnet(draft: Draft): Cidr | undefined {
  const address = draft.network?.address;
  if (address === undefined) return undefined;
  const parsed = parseCidr(address);
  return parsed.ok ? parsed.value : undefined;
}

/** The network or broadcast address of an IPv4 subnet that has room for hosts besides them. */
function reservedAddressKind(subnet: Cidr, value: bigint): "network" | "broadcast" | undefined {
  if (subnet.ip.family !== 4 || subnet.prefix > 30) return undefined;
  if (value === subnet.first) return "network";
  if (value === subnet.last) return "broadcast";
  return undefined;
}

// A link that is down is allowed: the cable may be plugged in later, and firstboot brings the interface up.
export const interfaceExists: Rule = (draft, { host, names }) => {
  const name = draft.network?.interface;
  if (name === undefined || host.interfaces.some((i) => i.name === name)) return [];
  const path = ["network", "interface"];
  return [{ path, message: `${names.field(path)} ${shown(name)} is not a network interface on this host`, hint: interfaceList(host) }];
};

export const validNetworkAddress: Rule = (draft, { names }) => {
  const address = draft.network?.address;
  if (address === undefined) return [];
  const path = ["network", "address"];
  const field = names.field(path);
  const parsed = parseCidr(address);
  if (!parsed.ok) {
    return [{ path, message: `${field}: ${parsed.problem}`, hint: "write the node's address with its prefix length, e.g. 10.20.0.11/24" }];
  }
  const subnet = parsed.value;
  const reserved = reservedAddressKind(subnet, subnet.ip.value);
  if (!reserved) return [];
  const family = subnet.ip.family;
  const firstHost = formatIp({ family, value: subnet.first + 1n });
  const lastHost = formatIp({ family, value: subnet.last - 1n });
  return [
    {
      path,
      message: `${field} ${address} is the ${reserved} address of ${subnetText(subnet)}, not a host address`,
      hint: `use an address from ${firstHost} to ${lastHost}`,
    },
  ];
};

// IPv6 routers are usually announced by their link-local address (fe80::/10), outside every global subnet.
export function isIpv6LinkLocal(ip: Ip): boolean {
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

// The node has one address, so it reaches servers of that IP version only.
function familyProblem(ip: Ip, text: string, draft: Draft, names: Names): string | undefined {
  const subnet = managementSubnet(draft);
  if (!subnet || subnet.ip.family === ip.family) return undefined;
  return `${text} is IPv${ip.family}, but the node's address (${names.field(["network", "address"])}) is IPv${subnet.ip.family}, so the node could not reach it`;
}

function dnsErrors(draft: Draft, names: Names): PathError[] {
  return itemsOf(draft.network?.dns).flatMap(([i, text]) => {
    const path = ["network", "dns", i];
    const parsed = parseIp(text);
    const problem = parsed.ok ? familyProblem(parsed.value, text, draft, names) : parsed.problem;
    return problem ? [{ path, message: `${names.field(path)}: ${problem}`, hint: parsed.ok ? undefined : "a DNS server is given by its IP address" }] : [];
  });
}

function ntpErrors(draft: Draft, names: Names): PathError[] {
  return itemsOf(draft.network?.ntp).flatMap(([i, text]) => {
    const path = ["network", "ntp", i];
    const parsed = parseHostOrIp(text);
    const problem = !parsed.ok ? parsed.problem : parsed.value.kind === "ip" ? familyProblem(parsed.value.ip, text, draft, names) : undefined;
    return problem ? [{ path, message: `${names.field(path)}: ${problem}` }] : [];
  });
}

export const validServers: Rule = (draft, { names }) => [...dnsErrors(draft, names), ...ntpErrors(draft, names)];

interface Range {
  index: number;
  text: string;
  cidr: Cidr;
}

function rangeProblems(range: Range, earlier: Range[], management: Cidr | undefined, names: Names): Array<Omit<PathError, "path">> {
  const { text, cidr } = range;
  const addressField = names.field(["network", "address"]);
  const problems: Array<Omit<PathError, "path">> = [];
  if (cidr.ip.value !== cidr.first) {
    problems.push({ message: `${text} has host bits set: the range starts at ${subnetText(cidr)}`, hint: `write ${subnetText(cidr)}` });
  }
  if (management && management.ip.family !== cidr.ip.family) {
    problems.push({
      message: `${text} is IPv${cidr.ip.family}, but the node's address (${addressField}) is IPv${management.ip.family}; floating IPs are routed over the management network`,
    });
  } else if (management && cidrsOverlap(cidr, management)) {
    problems.push({ message: `${text} overlaps the management subnet ${subnetText(management)} (from ${addressField})` });
  }
  const overlapped = earlier.filter((other) => cidrsOverlap(cidr, other.cidr));
  if (overlapped.length > 0) {
    const named = overlapped.map((other) => `${names.field(["network", "floatingIpCidrs", other.index])} (${other.text})`);
    problems.push({ message: `${text} overlaps ${named.join(" and ")}` });
  }
  return problems;
}

export const validFloatingRanges: Rule = (draft, { names }) => {
  const management = managementSubnet(draft);
  const ranges: Range[] = [];
  const errors: PathError[] = [];
  for (const [index, text] of itemsOf(draft.network?.floatingIpCidrs)) {
    const path: Path = ["network", "floatingIpCidrs", index];
    const field = names.field(path);
    const parsed = parseCidr(text);
    if (!parsed.ok) {
      errors.push({ path, message: `${field}: ${parsed.problem}`, hint: "write the range as address/prefix, e.g. 203.0.113.0/24" });
      continue;
    }
    const range = { index, text, cidr: parsed.value };
    errors.push(...rangeProblems(range, ranges, management, names).map(({ message, hint }) => ({ path, message: `${field} ${message}`, hint })));
    ranges.push(range);
  }
  return errors;
};
