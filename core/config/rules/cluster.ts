import { isBareSecret, joinTokenProblem, secretProblem, TOKEN_HINT } from "../../cluster/join-token.ts";
import { diskNamed, diskOfPartition, disksNamed, sharedKind, stablePath } from "../../host/disk-names.ts";
import type { HostDisk, HostFacts } from "../../host/facts.ts";
import { unprintableAt } from "../../common/printable.ts";
import { described, diskList, quoted, shown, unusedDiskList } from "../messages.ts";
import { type Ip, parseCidr, parseHostOrIp, splitHostPort } from "../net.ts";
import { itemsOf } from "../paths.ts";
import type { Draft, Names, PathError, Rule } from "../schema.ts";
import { isIpv6LinkLocal, managementSubnet } from "./network.ts";

type Problem = Omit<PathError, "path">;

function ambiguityProblem(device: string, disks: HostDisk[]): Problem {
  const paths = disks.map((disk) => disk.path);
  return {
    message: `${shown(device)} is ambiguous: ${paths.slice(0, -1).join(", ")} and ${paths.at(-1)} share this ${sharedKind(disks, device)}`,
    hint: `name the disk by its /dev/disk/by-id path or kernel path: ${disks.map(described).join("; ")}`,
  };
}

function deviceProblem(device: string, host: HostFacts): Problem | undefined {
  const named = disksNamed(host.disks, device);
  if (named.length > 1) return ambiguityProblem(device, named);
  const disk = named[0];
  if (disk) {
    if (!disk.inUse) return undefined;
    return {
      message: `${shown(device)}${disk.path === device ? "" : ` (${disk.path})`} is in use${disk.usage ? ` (${disk.usage})` : ""}; Ceph needs a whole unused disk and erases it`,
      hint: unusedDiskList(host),
    };
  }
  const byName = host.disks.find((d) => d.name === device || d.path === `/dev/${device}`);
  if (byName) {
    const stable = stablePath(byName);
    return { message: `${shown(device)} is a disk name, not a device path`, hint: `write ${stable}${stable === byName.path ? "" : ` (or ${byName.path})`}` };
  }
  const whole = diskOfPartition(host, device);
  if (whole) return { message: `${shown(device)} is a partition; Ceph takes whole disks`, hint: `did you mean ${stablePath(whole)}? ${diskList(host)}` };
  return { message: `${shown(device)} is not a disk on this host`, hint: diskList(host) };
}

/** The same disk named twice, in the same words or in two (/dev/sdb and its WWN). */
function duplicateProblem(device: string, index: number, devices: Array<[number, string]>, host: HostFacts, names: Names): Problem | undefined {
  const disk = diskNamed(host, device);
  const first = devices.find(([, other]) => other === device || (disk !== undefined && diskNamed(host, other) === disk));
  if (!first || first[0] === index) return undefined;
  const also = names.field(["storage", "osdDevices", first[0]]);
  return { message: `${shown(device)} is listed twice (also ${also}${first[1] === device ? "" : ` as ${shown(first[1])}: both are ${disk!.path}`})` };
}

export const osdDevicesUsable: Rule = (draft, { host, names }) => {
  const devices = itemsOf(draft.storage?.osdDevices);
  return devices.flatMap(([i, device]) => {
    const path = ["storage", "osdDevices", i];
    const problem = duplicateProblem(device, i, devices, host, names) ?? deviceProblem(device, host);
    return problem ? [{ path, message: `${names.field(path)} ${problem.message}`, hint: problem.hint }] : [];
  });
};

/** The interface and address (as the host lists it) by which the host has `ip` now. */
function hostAddress(ip: Ip, host: HostFacts): string | undefined {
  for (const { name, addresses } of host.interfaces) {
    const found = addresses.find((text) => {
      const cidr = parseCidr(text);
      return cidr.ok && cidr.value.ip.family === ip.family && cidr.value.ip.value === ip.value;
    });
    if (found) return `${name} ${found}`;
  }
  return undefined;
}

function joinAddressProblem(text: string, draft: Draft, facts: HostFacts, names: Names): string | undefined {
  const { host, port } = splitHostPort(text);
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `port ${quoted(port)} is not a port number (1–65535)`;
  }
  const parsed = parseHostOrIp(host);
  if (!parsed.ok) return parsed.problem;
  // The join check reaches it as https://host: a name the URL parser refuses (an xn-- label that is not punycode) is no address.
  if (parsed.value.kind !== "ip" && !URL.canParse(`https://${host}/`)) {
    // A URL reads a host ending in a number (decimal or 0x hex) as an IPv4 address.
    const last = host.split(".").at(-1) ?? "";
    const why = /^(?:\d+|0x[\da-f]*)$/i.test(last) ? `ends in a number (${last}), so a URL reads it as an IPv4 address, which it is not` : "is not a host name a URL can carry (an xn-- label must be valid punycode)";
    return `${quoted(host)} ${why}; write the name as DNS knows it, or an IP address`;
  }
  // A connection to 0.0.0.0 or :: is a connection to this host.
  if (parsed.value.kind === "ip" && parsed.value.ip.value === 0n) {
    return `${host} is the unspecified address, which reaches this node itself; point it at a node already in the cluster`;
  }
  if (parsed.value.kind === "hostname" && parsed.value.name === draft.hostname) {
    return `${host} is this node's own hostname (${names.field(["hostname"])}); point it at a node already in the cluster`;
  }
  if (parsed.value.kind === "ip" && isIpv6LinkLocal(parsed.value.ip)) {
    return `${host} is an IPv6 link-local address (fe80::/10), which needs a zone (%eth0) that a join address cannot carry; give the node's global or unique-local address`;
  }
  const own = managementSubnet(draft)?.ip;
  if (parsed.value.kind === "ip" && own && own.family === parsed.value.ip.family && own.value === parsed.value.ip.value) {
    return `${host} is this node's own address (${names.field(["network", "address"])}); point it at a node already in the cluster`;
  }
  const now = parsed.value.kind === "ip" ? hostAddress(parsed.value.ip, facts) : undefined;
  if (now) return `${host} is an address this host has now (${now}); point it at a node already in the cluster`;
  return undefined;
}

/** The cluster's name is free text, but shown everywhere (terminals, logs, every join's check) and compared exactly. */
export const validClusterName: Rule = (draft, { names }) => {
  const name = draft.cluster?.name;
  // The name a founding node gives: a join's names a cluster that exists, compared with its name as it is (one an
  // older installer founded with a blank or a control character in it is still joined).
  if (name === undefined || draft.mode !== "hyperconverged-init") return [];
  const path = ["cluster", "name"];
  // What a terminal obeys, reorders or hides: what printable() writes out wherever the name is shown (one list).
  const at = unprintableAt(name);
  if (at >= 0) {
    const code = name.codePointAt(at)!.toString(16).toUpperCase().padStart(4, "0");
    const character = [...name.slice(0, at)].length + 1;
    const message = `${names.field(path)} holds U+${code} (a control, format or invisible character) at character ${character}: a cluster's name is shown on terminals, in logs and by every node that joins; use printable characters`;
    return [{ path, message }];
  }
  if (name.trim() !== name) return [{ path, message: `${names.field(path)} begins or ends with a blank: a join compares names exactly; write it without` }];
  return [];
};

export const validJoinAddress: Rule = (draft, { host, names }) => {
  const text = draft.cluster?.joinAddress;
  if (text === undefined) return [];
  const path = ["cluster", "joinAddress"];
  const problem = joinAddressProblem(text, draft, host, names);
  if (!problem) return [];
  return [
    {
      path,
      message: `${names.field(path)}: ${problem}`,
      hint: "give a node already in the cluster as IP, IP:port or hostname, e.g. 10.20.0.10 or 10.20.0.10:9443",
    },
  ];
};

/** SPEC §6: a join carries the whole token; an ha-init node makes its token and may carry only the secret. Never quoted. */
function joinTokenFieldProblem(text: string, mode: Draft["mode"]): { message: string; hint: string } | undefined {
  if (mode === "hyperconverged-join") {
    const problem = joinTokenProblem(text);
    return problem && { message: `is ${problem.message}`, hint: problem.hint };
  }
  if (mode !== "hyperconverged-init" || isBareSecret(text)) return undefined;
  if (joinTokenProblem(text) === undefined) {
    return {
      message: "is a whole join token, but an ha-init node founds the cluster and makes its token itself",
      hint: "leave it out (a secret is generated) or give the secret alone, at least 22 base64url characters",
    };
  }
  return { message: `is not a secret: ${secretProblem(text)}`, hint: `leave it out and a secret is generated; ${TOKEN_HINT} is for joins` };
}

export const validJoinToken: Rule = (draft, { names }) => {
  const text = draft.cluster?.joinToken;
  if (text === undefined) return [];
  const path = ["cluster", "joinToken"];
  const problem = joinTokenFieldProblem(text, draft.mode);
  return problem ? [{ path, message: `${names.field(path)} ${problem.message}`, hint: problem.hint }] : [];
};
