import { isIP } from "node:net";
import { shown } from "./quote.ts";

export type Family = 4 | 6;

export interface Ip {
  family: Family;
  value: bigint;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

export const ADDRESS_BITS: Record<Family, number> = { 4: 32, 6: 128 };

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

function whyNotIpv4(text: string): string | undefined {
  if (!/^\d+(\.\d+)*$/.test(text)) return undefined;
  const parts = text.split(".");
  if (parts.length !== 4) return `an IPv4 address has 4 numbers, this has ${parts.length}`;
  const tooBig = parts.find((part) => Number(part) > 255);
  if (tooBig) return `${tooBig} is more than 255`;
  const leadingZero = parts.find((part) => part.length > 1 && part.startsWith("0"));
  return leadingZero ? `${leadingZero} has a leading zero` : undefined;
}

export function parseIp(text: string): Parsed<Ip> {
  if (text.trim() !== text) return { ok: false, problem: `${JSON.stringify(text)} has spaces around it` };
  if (text.includes("/")) return { ok: false, problem: `${shown(text)} has a prefix length: write the address alone (${shown(text.split("/")[0] ?? "")})` };
  if (text.includes("%")) return { ok: false, problem: `${shown(text)} has a zone index (%…), which is not allowed here` };
  const family = isIP(text);
  if (family === 4) return { ok: true, value: { family, value: BigInt(ipv4Groups(text).reduce((acc, g) => acc * 65536 + g, 0)) } };
  if (family === 6) return { ok: true, value: { family, value: ipv6Groups(text).reduce((acc, g) => (acc << 16n) | BigInt(g), 0n) } };
  const why = whyNotIpv4(text);
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
