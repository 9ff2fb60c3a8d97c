import { type Ip, parseHostOrIp, parseIp } from "../net.ts";
import type { Draft, Names, PathError } from "../schema.ts";
import { managementSubnet } from "./management-subnet.ts";
import { itemsOf, type Rule } from "./rule.ts";

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
