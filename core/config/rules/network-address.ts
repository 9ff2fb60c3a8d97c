import { formatIp, parseCidr, subnetText } from "../net.ts";
import { reservedAddressKind } from "./management-subnet.ts";
import type { Rule } from "./rule.ts";

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
