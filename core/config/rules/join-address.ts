import { isIP } from "node:net";
import { quoted } from "../messages.ts";
import { parseHostOrIp } from "../net.ts";
import type { Draft, Names } from "../schema.ts";
import { managementSubnet } from "./management-subnet.ts";
import type { Rule } from "./rule.ts";

function splitPort(text: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (bracketed) return { host: bracketed[1] ?? "", port: bracketed[2] };
  const colon = text.indexOf(":");
  if (isIP(text) === 6 || colon < 0 || colon !== text.lastIndexOf(":")) return { host: text };
  return { host: text.slice(0, colon), port: text.slice(colon + 1) };
}

function joinAddressProblem(text: string, draft: Draft, names: Names): string | undefined {
  const { host, port } = splitPort(text);
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `port ${quoted(port)} is not a port number (1–65535)`;
  }
  const parsed = parseHostOrIp(host);
  if (!parsed.ok) return parsed.problem;
  const own = managementSubnet(draft)?.ip;
  if (parsed.value.kind === "ip" && own && own.family === parsed.value.ip.family && own.value === parsed.value.ip.value) {
    return `${host} is this node's own address (${names.field(["network", "address"])}); point it at a node already in the cluster`;
  }
  return undefined;
}

export const validJoinAddress: Rule = (draft, { names }) => {
  const text = draft.cluster?.joinAddress;
  if (text === undefined) return [];
  const path = ["cluster", "joinAddress"];
  const problem = joinAddressProblem(text, draft, names);
  if (!problem) return [];
  return [
    {
      path,
      message: `${names.field(path)}: ${problem}`,
      hint: "give a node already in the cluster as IP, IP:port or hostname, e.g. 10.20.0.10 or 10.20.0.10:9443",
    },
  ];
};
