import { ADDRESS_BITS, formatIp, type Ip, type Parsed, parseIp } from "./ip.ts";
import { quoted, shown } from "./quote.ts";

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
  const ip = parseIp(text.slice(0, slash));
  if (!ip.ok) return ip;
  const prefixText = text.slice(slash + 1);
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
