import { SocketAddress } from "node:net";
import { quoted, shown } from "./messages.ts";

type Family = 4 | 6;

export interface Ip {
  family: Family;
  value: bigint;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const ADDRESS_BITS: Record<Family, number> = { 4: 32, 6: 128 };

function ipv4Groups(text: string): number[] {
  const [a = 0, b = 0, c = 0, d = 0] = text.split(".").map(Number);
  return [(a << 8) | b, (c << 8) | d];
}

function ipv6Groups(text: string): number[] {
  const groupsOf = (part: string) =>
    part === "" ? [] : part.split(":").flatMap((group) => (group.includes(".") ? ipv4Groups(group) : [parseInt(group, 16)]));
  const [headText = "", tailText] = text.split("::");
  const head = groupsOf(headText);
  if (tailText === undefined) return head;
  const tail = groupsOf(tailText);
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/**
 * The IPv4 address a URL reads `text` as, when `text` is not its plain dotted-decimal form: https://{joinAddress} (the join
 * check) and the resolver (inet_aton) take 0x0a.20.0.11, 169082891, 012.20.0.11, 10.20.11 and 10.20.0.11. all as 10.20.0.11.
 */
function urlReading(text: string): string | undefined {
  // Only a host: no userinfo, port, path or brackets for the URL to read into something else.
  if (text === "" || /[\s/?#@:[\]\\%]/u.test(text)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`https://${text}/`).hostname;
  } catch {
    return undefined;
  }
  return hostname !== text && ipFamily(hostname) === 4 ? hostname : undefined;
}

/** The unspecified address and the broadcast: what a degenerate form (0x, 0x.0x, 4294967295) reads as, never meant. */
const suggestable = (ipv4: string | undefined) => (ipv4 === "0.0.0.0" || ipv4 === "255.255.255.255" ? undefined : ipv4);

/** Why `text` is not an IPv4 address; `as` writes an address suggested instead as the field takes it (with its prefix). */
function whyNotIpv4(text: string, as: (ipv4: string) => string): string | undefined {
  const reading = suggestable(urlReading(text));
  if (!/^\d+(\.\d+)*$/.test(text)) return reading && `a URL or resolver reads it as ${reading} (hex, octal or shortened): did you mean ${as(reading)}?`;
  const parts = text.split(".");
  const readAs = reading ? `; a URL or resolver reads it as ${reading}: did you mean ${as(reading)}?` : "";
  if (parts.length !== 4) return `an IPv4 address has 4 numbers, this has ${parts.length}${readAs}`;
  const tooBig = parts.find((part) => Number(part) > 255);
  if (tooBig) return `${tooBig} is more than 255`;
  const leadingZero = parts.find((part) => part.length > 1 && part.startsWith("0"));
  if (!leadingZero) return undefined;
  // Written with zeros for alignment, it was meant in decimal; a URL or resolver reads it in octal.
  const decimal = suggestable(parts.map(Number).join("."));
  const meant = [...new Set([reading, decimal])].filter((ip) => ip !== undefined).map(as);
  const suggested = meant.length > 0 ? `: did you mean ${meant.join(", or ")}?` : "";
  return `${leadingZero} has a leading zero${reading ? `, which a URL or resolver reads as octal (as ${reading})` : ""}${suggested}`;
}

/** ::ffff:a.b.c.d: the IPv4 address a.b.c.d, to a dual-stack socket. */
function mappedIpv4(ip: Ip): string | undefined {
  return ip.family === 6 && ip.value >> 32n === 0xffffn ? formatIp({ family: 4, value: ip.value & 0xffffffffn }) : undefined;
}

function ipOf(family: Family, text: string): Ip {
  if (family === 4) return { family, value: BigInt(ipv4Groups(text).reduce((acc, g) => acc * 65536 + g, 0)) };
  return { family, value: ipv6Groups(text).reduce((acc, g) => (acc << 16n) | BigInt(g), 0n) };
}

/**
 * 4 or 6 for an IP address, 0 for anything else: `net.isIP`'s answer, given by inet_pton (SocketAddress) instead of
 * isIP's patterns, whose first use compiles them (≈ 8 ms for both, in a node's first validation and in every fleet
 * run's plan checks and first connection).
 */
export function ipFamily(text: string): 0 | Family {
  // isIP takes an IPv6 address's zone (fe80::1%eth0) as these characters; inet_pton would ignore whatever it is.
  const zone = text.indexOf("%");
  if (zone >= 0 && !/^[0-9a-zA-Z.:-]+$/.test(text.slice(zone + 1))) return 0;
  const address = zone < 0 ? text : text.slice(0, zone);
  const family = address.includes(":") ? 6 : 4;
  if (zone >= 0 && family === 4) return 0;
  try {
    new SocketAddress({ address, family: family === 6 ? "ipv6" : "ipv4" });
  } catch {
    return 0;
  }
  return family;
}

/** A well-formed address (os.networkInterfaces', for a certificate); undefined if not one. */
export function parseAddress(text: string): Ip | undefined {
  const family = text.includes("%") ? 0 : ipFamily(text);
  return family === 0 ? undefined : ipOf(family, text);
}

export function parseIp(text: string): Parsed<Ip> {
  return readIp(text, undefined);
}

/** parseIp for the address part of a CIDR of `prefix` (when it is a number), whose suggestions carry the prefix. */
function readIp(text: string, prefix: number | undefined): Parsed<Ip> {
  if (text.trim() !== text) return { ok: false, problem: `${quoted(text)} has spaces around it` };
  if (text.includes("/")) return { ok: false, problem: `${shown(text)} has a prefix length: write the address alone (${shown(text.split("/")[0] ?? "")})` };
  if (text.includes("%")) return { ok: false, problem: `${shown(text)} has a zone index (%…), which is not allowed here` };
  const family = ipFamily(text);
  if (family !== 0) {
    const ip = ipOf(family, text);
    const mapped = mappedIpv4(ip);
    // ::ffff:0:0/96 is the IPv4 space: /120 there is /24.
    const mappedPrefix = prefix === undefined || prefix < 96 ? "" : `/${prefix - 96}`;
    const meant = suggestable(mapped);
    const suggested = meant ? `: did you mean ${meant}${mappedPrefix}?` : "";
    if (mapped) return { ok: false, problem: `${shown(text)} is an IPv4 address written as IPv6 (IPv4-mapped)${suggested}` };
    return { ok: true, value: ip };
  }
  const why = whyNotIpv4(text, (ipv4) => (prefix === undefined ? ipv4 : `${ipv4}/${prefix}`));
  return { ok: false, problem: `${shown(text)} is not an IP address${why ? `: ${why}` : ""}` };
}

function ipv6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(16 * (7 - i))) & 0xffffn));
  let run = { start: -1, length: 0 };
  for (let i = 0; i < 8; i += 1) {
    let length = 0;
    while (i + length < 8 && groups[i + length] === 0) length += 1;
    if (length > run.length && length > 1) run = { start: i, length };
  }
  const hex = groups.map((g) => g.toString(16));
  if (run.start < 0) return hex.join(":");
  return `${hex.slice(0, run.start).join(":")}::${hex.slice(run.start + run.length).join(":")}`;
}

export function formatIp({ family, value }: Ip): string {
  if (family === 6) return ipv6Text(value);
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

export interface Cidr {
  ip: Ip;
  prefix: number;
  /** The subnet's first and last addresses. */
  first: bigint;
  last: bigint;
}

export function parseCidr(text: string): Parsed<Cidr> {
  const slash = text.indexOf("/");
  if (slash < 0) return { ok: false, problem: `${shown(text)} has no prefix length (/24, /64, …)` };
  const prefixText = text.slice(slash + 1);
  const ip = readIp(text.slice(0, slash), /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : undefined);
  if (!ip.ok) return ip;
  if (prefixText === "") return { ok: false, problem: `${shown(text)} has nothing after the /: add the prefix length` };
  if (!/^\d{1,3}$/.test(prefixText)) return { ok: false, problem: `prefix ${quoted(prefixText)} is not a number` };
  const prefix = Number(prefixText);
  const bits = ADDRESS_BITS[ip.value.family];
  if (prefix > bits) return { ok: false, problem: `prefix ${prefix} is out of range for IPv${ip.value.family} (0–${bits})` };
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  const first = ip.value.value & ~hostMask;
  return { ok: true, value: { ip: ip.value, prefix, first, last: first | hostMask } };
}

/** "10.20.0.0/24": the subnet a CIDR lies in. */
export function subnetText(cidr: Cidr): string {
  return `${formatIp({ family: cidr.ip.family, value: cidr.first })}/${cidr.prefix}`;
}

export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  return cidr.ip.family === ip.family && cidr.first <= ip.value && ip.value <= cidr.last;
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return a.ip.family === b.ip.family && a.first <= b.last && b.first <= a.last;
}

function characterProblem(name: string): string | undefined {
  const bad = [...name].find((ch) => !/[A-Za-z0-9.-]/.test(ch));
  if (bad !== undefined) {
    const shownBad = bad === " " ? "a space" : quoted(bad);
    return `it contains ${shownBad}; a hostname has only letters a-z, digits 0-9, "-" and dots between labels`;
  }
  if (/[A-Z]/.test(name)) return `it has uppercase letters; write it in lowercase (${quoted(name.toLowerCase())})`;
  return undefined;
}

function labelProblem(label: string): string | undefined {
  if (label.length > 63) return `label ${quoted(label)} is ${label.length} characters long; a label has at most 63`;
  if (label.startsWith("-")) return `label ${quoted(label)} starts with "-"`;
  if (label.endsWith("-")) return `label ${quoted(label)} ends with "-"`;
  return undefined;
}

/** Which RFC 1123 rule `name` breaks, if any. */
export function hostnameProblem(name: string): string | undefined {
  if (name.length > 253) return `it is ${name.length} characters long; a hostname has at most 253`;
  if (name.split(".").includes("")) return "it has an empty label (a dot at the start or end, or two dots in a row)";
  const characters = characterProblem(name);
  if (characters) return characters;
  if (/^[\d.]+$/.test(name)) return "it has only digits and dots, so it reads as an IP address; a hostname needs a letter";
  return name.split(".").map(labelProblem).find((problem) => problem !== undefined);
}

type HostOrIp = { kind: "ip"; ip: Ip } | { kind: "hostname"; name: string };

export function parseHostOrIp(text: string): Parsed<HostOrIp> {
  const ip = parseIp(text);
  if (ip.ok) return { ok: true, value: { kind: "ip", ip: ip.value } };
  // Digits and dots, colons, a prefix or a zone: meant as an IP address, so say what is wrong with it as one.
  // So is what a URL reads as an IPv4 address (0x0a.20.0.11): as a host name it would slip past every check of addresses.
  if (/^[\d.]+$/.test(text) || /[:/%]/.test(text) || text.trim() !== text || urlReading(text) !== undefined) return ip;
  const problem = hostnameProblem(text);
  if (problem) return { ok: false, problem: `${quoted(text)} is neither an IP address nor a valid hostname: ${problem}` };
  return { ok: true, value: { kind: "hostname", name: text } };
}

/** `host`, `host:port`, a bare IPv6 literal or `[IPv6]:port`; the port as written, for the caller to judge. */
export function splitHostPort(text: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (bracketed) return { host: bracketed[1] ?? "", port: bracketed[2] };
  const colon = text.indexOf(":");
  if (ipFamily(text) === 6 || colon < 0 || colon !== text.lastIndexOf(":")) return { host: text };
  return { host: text.slice(0, colon), port: text.slice(colon + 1) };
}
